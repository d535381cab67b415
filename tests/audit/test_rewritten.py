"""Class 1: upstream rewrote the fix. Most of the lines the patch adds that the old pin lacks
are in the new release, spelled differently in places (``t.Optional[int]`` became
``int | None``), and the hunks fail at fuzz 0: *upstreamed* (written differently) or
*partially upstreamed*, never a plain conflict; lines the pin already had count for nothing.
"""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

OLD = """import typing as t

from pkg.util import check_port, log


def connect(host: str, port: t.Optional[int] = None) -> None:
    check_port(port)
    return open_socket(host, port)
"""

# the backport, cut against OLD: five substantive added lines; "check_port(port)" is a line
# the pin already has (it proves nothing when the new release has it too)
BACKPORT = """Subject: limit the host name length (CVE-2031-0001)
---
--- a/pkg/net.py
+++ b/pkg/net.py
@@ -5,4 +5,9 @@ from pkg.util import check_port, log
 
 def connect(host: str, port: t.Optional[int] = None) -> None:
     check_port(port)
+    if len(host) > MAX_HOST_LENGTH:
+        log.warning("host name too long: %d characters", len(host))
+        raise ValueError("host name too long")
+    timeout: t.Optional[float] = DEFAULT_TIMEOUT
+    check_port(port)
     return open_socket(host, port)
"""

# upstream's own fix: typed with PEP 604 (the same line for the audit), the logger renamed (a
# line spelled differently), its own exception (a line not found), the function reformatted
NEW = """from pkg.util import check_port, logger


def connect(
    host: str,
    port: int | None = None,
) -> None:
    check_port(port)
    if len(host) > MAX_HOST_LENGTH:
        logger.warning("host name too long: %d characters", len(host))
        raise InvalidHost(host)
    timeout: float | None = DEFAULT_TIMEOUT
    return open_socket(host, port, timeout=timeout)
"""


def test_rewritten_fix_is_upstreamed_written_differently(tmp_path: Path) -> None:
    [verdict] = judge(
        tmp_path, {"pkg/net.py": NEW}, [("host.patch", BACKPORT)], {"pkg/net.py": OLD}
    )
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.rule == "written-differently"
    assert verdict.summary == (
        "upstream has it written differently: every code file has at least 75% of its "
        "substantive added lines there (pkg/net.py 3/4) (lines the old pin already had are not "
        'counted); not found, review before retiring: `raise ValueError("host name too long")`; '
        'spelled differently: `log.warning("host name too long: %d characters", len(host))` as '
        '`logger.warning("host name too long: %d characters", len(host))`; 3 of 5 substantive '
        "added lines already upstream (strongest: pkg/net.py 3/5); to do: retire (after "
        "reviewing the lines not found)"
    )
    [share] = verdict.shares
    assert (share.at_pin, share.new_found, share.new_total) == (1, 3, 4)
    assert [h.status for h in verdict.hunks] == ["fails"]


UTIL_OLD = """def check_port(port):
    if port is not None and port < 0:
        raise ValueError(port)
"""

UTIL_PATCH = """--- a/pkg/util.py
+++ b/pkg/util.py
@@ -1,3 +1,6 @@
 def check_port(port):
     if port is not None and port < 0:
         raise ValueError(port)
+    if port is not None and port > 65535:
+        raise ValueError("port out of range: %d" % port)
+    log.debug("port %d checked", port)
"""


def test_half_rewritten_fix_is_partially_upstreamed(tmp_path: Path) -> None:
    old = {"pkg/net.py": OLD, "pkg/util.py": UTIL_OLD}
    # upstream wrote the range check its own way: one of the two lines is the same
    util_new = (
        UTIL_OLD + "    if port is not None and port > 65535:\n        raise PortError(port)\n"
    )
    new = {"pkg/net.py": NEW, "pkg/util.py": util_new.replace("ValueError(port)", "E(port)")}
    [verdict] = judge(tmp_path, new, [("host.patch", BACKPORT + UTIL_PATCH)], old)
    assert (verdict.verdict, verdict.action) == ("partially upstreamed", "look")
    assert verdict.rule == "mostly-there"
    assert verdict.summary == (
        "most of its new lines are upstream, written differently: 4 of 7 (pkg/net.py 3/4, "
        "pkg/util.py 1/3) (lines the old pin already had are not counted); not found, review "
        'before retiring: `raise ValueError("host name too long")`; `raise ValueError("port out '
        'of range: %d" % port)`; `log.debug("port %d checked", port)`; spelled differently: `log.warning("host name too long: %d '
        'characters", len(host))` as `logger.warning("host name too long: %d characters", '
        "len(host))`; pkg/net.py #1, pkg/util.py #1 fail at fuzz 0; to do: look (most of it is "
        "upstream, written differently; decide what is left)"
    )
    # upstream has the debug line too: 5 of 7, one file short of 75%: written differently
    new["pkg/util.py"] += '    log.debug("port %d checked", port)\n'
    [verdict] = judge(tmp_path / "c", new, [("host.patch", BACKPORT + UTIL_PATCH)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.summary.startswith(
        "upstream has it written differently: 5 of 7 substantive added lines are there "
        "(pkg/net.py 3/4, pkg/util.py 2/3)"
    )
    # one line of seven: a conflict
    new["pkg/net.py"] = OLD.replace("t.Optional[int]", "int | None")
    [verdict] = judge(tmp_path / "b", new, [("host.patch", BACKPORT + UTIL_PATCH)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "port")


def test_lines_already_at_the_pin_prove_nothing(tmp_path: Path) -> None:
    # the patch adds three lines the pin already has elsewhere in the file; the new release
    # has them too (where the pin had them), but not the patch's change
    old = OLD + "\n\ndef reconnect(host, port):\n    check_port(port)\n    log.info(host)\n"
    patch = """Subject: check twice
---
--- a/pkg/net.py
+++ b/pkg/net.py
@@ -6,3 +6,5 @@ from pkg.util import check_port, log
 def connect(host: str, port: t.Optional[int] = None) -> None:
     check_port(port)
+    log.info(host)
+    check_port(port)
     return open_socket(host, port)
"""
    new = old.replace("t.Optional[int]", "int | None").replace("import typing as t\n\n", "")
    [verdict] = judge(tmp_path, {"pkg/net.py": new}, [("twice.patch", patch)], {"pkg/net.py": old})
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
    [share] = verdict.shares
    assert (share.found, share.at_pin, share.new_total) == (2, 2, 0)


def test_without_the_pin_the_summary_says_so(tmp_path: Path) -> None:
    # without the pin a respelling cannot be told from the old line the patch changed, and
    # lines the pin had count too
    [verdict] = judge(tmp_path, {"pkg/net.py": NEW}, [("host.patch", BACKPORT)], None)
    assert (verdict.verdict, verdict.action) == ("partially upstreamed", "look")
    assert verdict.summary.startswith(
        "most of its new lines are upstream, written differently: 3 of 5 (pkg/net.py 3/5) (the "
        "old pin's tree was not available: lines it already had are counted too);"
    )


def test_another_name_in_the_same_frame_is_not_a_respelling(tmp_path: Path) -> None:
    # the patch registers its own knob; the new release registered another one the same way
    old = 'KNOBS = {\n    "VLLM_A": lambda: int(os.getenv("VLLM_A", "0")),\n}\n'
    patch = """Subject: register the fast-path knob
---
--- a/pkg/envs.py
+++ b/pkg/envs.py
@@ -1,3 +1,4 @@
 KNOBS = {
     "VLLM_A": lambda: int(os.getenv("VLLM_A", "0")),
+    "VLLM_FAST": lambda: int(os.getenv("VLLM_FAST", "0")),
 }
"""
    new = old.replace("}\n", '    "VLLM_B": lambda: int(os.getenv("VLLM_B", "0")),\n}\n')
    new = new.replace("KNOBS = {", "KNOBS: dict = {")
    [verdict] = judge(tmp_path, {"pkg/envs.py": new}, [("knob.patch", patch)], {"pkg/envs.py": old})
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
    [share] = verdict.shares
    assert (share.new_found, share.new_total, share.respelled) == (0, 1, ())


EVAL_OLD = """def safe_eval(expression, names):
    scope = dict(names)
    return eval(expression, scope)
"""

EVAL_FIX = """Subject: restrict the environment's keys (CVE-2031-0005)
---
--- a/pkg/evaluate.py
+++ b/pkg/evaluate.py
@@ -1,3 +1,5 @@
 def safe_eval(expression, names):
     scope = dict(names)
+    if any('__' in k or hasattr(__builtins__, k) for k in scope):
+        raise ValueError(f"names not allowed in {sorted(scope)!r}")
     return eval(expression, scope)
"""

# upstream: the same check on the builtins module, the message unchanged
EVAL_NEW = """import builtins


def safe_eval(expression, names):
    scope = dict(names)
    if any("__" in k or hasattr(builtins, k) for k in scope):
        raise ValueError(f"names not allowed in {sorted(scope)!r}")
    return eval(expression, scope)
"""

NOTES_OLD = "Changes\n=======\n\n2.0\n---\n\n- Faster.\n"
NOTES_NEW = "Changes\n=======\n\n2.1\n---\n\n- Fixed CVE-2031-0005.\n\n2.0\n---\n\n- Faster.\n"


def test_a_two_line_fix_named_by_the_changelog_with_a_name_respelled(tmp_path: Path) -> None:
    old = {"pkg/evaluate.py": EVAL_OLD, "CHANGES.rst": NOTES_OLD}
    new = {"pkg/evaluate.py": EVAL_NEW, "CHANGES.rst": NOTES_NEW}
    [verdict] = judge(tmp_path, new, [("CVE-2031-0005.patch", EVAL_FIX)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    [share] = verdict.shares
    assert share.respelled == (
        (
            "if any('__' in k or hasattr(__builtins__, k) for k in scope):",
            'if any("__" in k or hasattr(builtins, k) for k in scope):',
        ),
    )
    # two lines are too few without the changelog's word
    new["CHANGES.rst"] = NOTES_OLD
    [verdict] = judge(tmp_path / "b", new, [("CVE-2031-0005.patch", EVAL_FIX)], old)
    assert verdict.verdict == "conflict"


SCOPE_OLD = """def evaluate(expression, _environment={}, **kw):
    args = dict(_environment)
    args.update(kw)
    return eval(expression, args)
"""

SCOPE_FIX = """Subject: refuse dunder names in the environment
---
--- a/pkg/evaluate.py
+++ b/pkg/evaluate.py
@@ -1,4 +1,7 @@
 def evaluate(expression, _environment={}, **kw):
+    for k in list(_environment.keys()) + list(kw.keys()):
+        if "__" in k:
+            raise ValueError(k)
     args = dict(_environment)
     args.update(kw)
     return eval(expression, args)
"""

# upstream renamed the parameter (the line's longest name) and made the same check
SCOPE_NEW = """def evaluate(expression, options=None, **kw):
    options = options or {}
    for k in list(options.keys()) + list(kw.keys()):
        if "__" in k:
            raise ValueError(k)
    args = dict(options)
    args.update(kw)
    return eval(expression, args)
"""


def test_a_respelling_whose_longest_name_was_renamed(tmp_path: Path) -> None:
    old = {"pkg/evaluate.py": SCOPE_OLD}
    new = {"pkg/evaluate.py": SCOPE_NEW}
    [verdict] = judge(tmp_path, new, [("scope.patch", SCOPE_FIX)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    [share] = verdict.shares
    assert share.counted == (3, 3)
    assert share.respelled == (
        (
            "for k in list(_environment.keys()) + list(kw.keys()):",
            "for k in list(options.keys()) + list(kw.keys()):",
        ),
    )


DECODER_OLD = """class Decoder:
    def next_event(self):
        if self.state == DATA:
            if self.buffer.find(b"--" + self.boundary) == -1:
                data_length = del_index = self.last_newline()
                more_data = True
            return self.buffer[:data_length], del_index, more_data
"""

# Werkzeug's CVE-2023-46136 backport, in its shape: four substantive added lines
SLOW_PARSING = """Subject: fix slow multipart parsing for huge parts with few CR/LF
---
--- a/pkg/multipart.py
+++ b/pkg/multipart.py
@@ -1,7 +1,11 @@
 class Decoder:
     def next_event(self):
         if self.state == DATA:
-            if self.buffer.find(b"--" + self.boundary) == -1:
+            boundary = b"--" + self.boundary
+
+            if self.buffer.find(boundary) == -1:
                 data_length = del_index = self.last_newline()
+                if (len(self.buffer) - data_length) > len(b"\\n" + boundary):
+                    data_length = del_index = len(self.buffer)
                 more_data = True
             return self.buffer[:data_length], del_index, more_data
"""

# upstream moved the branch into a helper that takes the buffer as ``data`` and calls the
# end ``data_end``
DECODER_NEW = """class Decoder:
    def next_event(self):
        if self.state == DATA:
            return self._parse_data(self.buffer)

    def _parse_data(self, data):
        boundary = b"--" + self.boundary

        if self.buffer.find(boundary) == -1:
            data_end = del_index = self.last_newline(data)
            if (len(data) - data_end) > len(b"\\n" + boundary):
                data_end = del_index = len(data)
            more_data = True
        return data[:data_end], del_index, more_data
"""


def test_an_attribute_of_self_passed_in_as_a_local_is_one_name_respelled(
    tmp_path: Path,
) -> None:
    # `len(self.buffer)` is `len(data)` in the helper, `data_length` is `data_end`: two
    # names changed (the condition spelled differently); the assignment changes three
    # tokens of six and stays a line not found: 3 of 4 lines there
    [verdict] = judge(
        tmp_path,
        {"pkg/multipart.py": DECODER_NEW},
        [("slow.patch", SLOW_PARSING)],
        {"pkg/multipart.py": DECODER_OLD},
    )
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    [share] = verdict.shares
    assert (share.counted, share.respelled) == (
        (3, 4),
        (
            (
                'if (len(self.buffer) - data_length) > len(b"\\n" + boundary):',
                'if (len(data) - data_end) > len(b"\\n" + boundary):',
            ),
        ),
    )
    assert share.missing == ("data_length = del_index = len(self.buffer)",)


def test_a_line_with_three_names_changed_is_another_line(tmp_path: Path) -> None:
    # upstream's condition compares other quantities: not the patch's line
    new = DECODER_NEW.replace("(len(data) - data_end) > len(", "(len(chunk) - data_end) > max(")
    [verdict] = judge(
        tmp_path,
        {"pkg/multipart.py": new},
        [("slow.patch", SLOW_PARSING)],
        {"pkg/multipart.py": DECODER_OLD},
    )
    assert verdict.verdict == "conflict"
    [share] = verdict.shares
    assert (share.counted, share.respelled) == ((2, 4), ())


LINKER_OLD = """class OtherTests:
  def test_output_is_a_directory(self):
    ret = self.expect_fail([CC, 'hello.c', '-o', '.'])
    self.assertContained('ld-tool: error: cannot open output file .:', ret)

  def test_missing_library(self):
    err = self.expect_fail([CC, 'hello.c', '-lnothere'])
    self.assertContained('ld-tool: error: unable to find library -lnothere', err)

  def test_tiny_memory(self):
    err = self.expect_fail([CC, 'hello.c', '-sINITIAL_MEMORY=64KB'])
    self.assertContained('ld-tool: error: initial memory too small', err)

  def test_hello(self):
    ret = self.run_process([CC, 'hello.c'])
    self.assertContained('Hello, world!', ret)
"""

# the distribution's linker prints no tool name: the patch shortens each expected message
NO_TOOL_NAME = """Subject: do not expect the linker's tool name in its messages
---
--- a/tests/test_other.py
+++ b/tests/test_other.py
@@ -1,15 +1,15 @@
 class OtherTests:
   def test_output_is_a_directory(self):
     ret = self.expect_fail([CC, 'hello.c', '-o', '.'])
-    self.assertContained('ld-tool: error: cannot open output file .:', ret)
+    self.assertContained('error: cannot open output file .:', ret)
 
   def test_missing_library(self):
     err = self.expect_fail([CC, 'hello.c', '-lnothere'])
-    self.assertContained('ld-tool: error: unable to find library -lnothere', err)
+    self.assertContained('error: unable to find library -lnothere', err)
 
   def test_tiny_memory(self):
     err = self.expect_fail([CC, 'hello.c', '-sINITIAL_MEMORY=64KB'])
-    self.assertContained('ld-tool: error: initial memory too small', err)
+    self.assertContained('error: initial memory too small', err)
 
   def test_hello(self):
     ret = self.run_process([CC, 'hello.c'])
"""

# upstream kept the tool name in every message and added tests of the same frame with other
# messages: none of them is the patch's line spelled differently
LINKER_ADDED = """
  def test_embed_needs_output(self):
    err = self.expect_fail([CC, 'hello.c', '--embed'])
    self.assertContained('error: --obj-output is required when using --embed', err)
    self.assertContained('error: initial memory too large', err)
    self.assertContained('error: unable to open library -lnothere', err)

  def test_side_module(self):
    ret = self.run_process([CC, 'side.c', '-sSIDE_MODULE'])
    self.assertContained('hello from the side module', ret)
"""
LINKER_NEW = LINKER_OLD.replace("[CC, ", "[CC, '-v', ") + LINKER_ADDED


def test_a_shortened_message_is_a_new_string_not_one_the_pin_had(tmp_path: Path) -> None:
    old = {"tests/test_other.py": LINKER_OLD}
    new = {"tests/test_other.py": LINKER_NEW}
    [verdict] = judge(tmp_path, new, [("no-tool-name.patch", NO_TOOL_NAME)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
    [share] = verdict.shares
    assert (share.counted, share.respelled) == ((0, 3), ())
    assert share.missing == (
        "self.assertContained('error: cannot open output file .:', ret)",
        "self.assertContained('error: unable to find library -lnothere', err)",
        "self.assertContained('error: initial memory too small', err)",
    )


CLIENT_OLD = """def fetch(url, session):
    session.headers.update(user_agent=AGENT)
    response = session.get(url, timeout=300, limit=POOLS)
    return response.json()
"""

# the patch sizes the connection pool: its number and its name are new to the pin, which has
# them only inside longer tokens (300, POOLS)
POOL_PATCH = """Subject: size the connection pool
---
--- a/pkg/client.py
+++ b/pkg/client.py
@@ -1,4 +1,7 @@
 def fetch(url, session):
     session.headers.update(user_agent=AGENT)
+    session.trust_env = False
+    session.mount("https://", make_adapter(pool=30, block=True))
+    session.mount("http://", make_adapter(pool=POOL, block=True))
     response = session.get(url, timeout=300, limit=POOLS)
     return response.json()
"""

# upstream sizes the pool too, with another number and another name
CLIENT_NEW = """def fetch(url, session):
    session.headers.update(user_agent=DEFAULT_AGENT)
    session.trust_env = False
    session.mount("https://", make_adapter(pool=60, block=True))
    session.mount("http://", make_adapter(pool=POOL_SIZE, block=True))
    response = session.get(url, timeout=300, limit=POOLS)
    return response.json()
"""


def test_a_number_or_name_inside_a_longer_token_of_the_pin_is_new(tmp_path: Path) -> None:
    # 30 and POOL are the patch's own: upstream's 60 and POOL_SIZE are other lines, not
    # the patch's respelled, although the pin's 300 and POOLS hold their text
    old = {"pkg/client.py": CLIENT_OLD}
    new = {"pkg/client.py": CLIENT_NEW}
    [verdict] = judge(tmp_path, new, [("pool.patch", POOL_PATCH)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
    [share] = verdict.shares
    assert (share.counted, share.respelled) == ((1, 3), ())
    assert share.missing == (
        'session.mount("https://", make_adapter(pool=30, block=True))',
        'session.mount("http://", make_adapter(pool=POOL, block=True))',
    )
    # where the pin has them as whole tokens, they are not the change: upstream's lines
    # respell it
    whole = "\n\nDEFAULT_POOL = POOL = 30\n"
    old = {"pkg/client.py": CLIENT_OLD + whole}
    new = {"pkg/client.py": CLIENT_NEW + whole}
    [verdict] = judge(tmp_path / "b", new, [("pool.patch", POOL_PATCH)], old)
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    [share] = verdict.shares
    assert (share.counted, share.missing) == ((3, 3), ())
    assert share.respelled == (
        (
            'session.mount("https://", make_adapter(pool=30, block=True))',
            'session.mount("https://", make_adapter(pool=60, block=True))',
        ),
        (
            'session.mount("http://", make_adapter(pool=POOL, block=True))',
            'session.mount("http://", make_adapter(pool=POOL_SIZE, block=True))',
        ),
    )
