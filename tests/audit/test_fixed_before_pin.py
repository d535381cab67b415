"""A failing patch that names an issue the old pin's changelog already names: *look*.

Upstream fixed that issue its own way before the pin, and the patch was carried on top of
that fix as a variant of its own; once it no longer applies, whether the variant is still
wanted is a person's call. A patch whose issue the pin's changelog does not name stays
*port*, and one that still applies stays *carry*.
"""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

CHANGES_OLD = """Changes
=======

2.0 (2024-03-02)
----------------

- Install into the user's site directory when the system one is not writable. (#412)
- Read the index address from the environment. (#398)
"""

CHANGES_NEW = CHANGES_OLD.replace(
    "=======\n",
    """=======

2.1 (2024-09-15)
----------------

- Resolve the target directory once. (#430)
""",
)

INSTALL_OLD = """import os
import sys


def add_options(parser):
    parser.add_option("--user", dest="use_user_site", action="store_true")
    parser.add_option("--prefix", dest="prefix_path")
    parser.add_option("--target", dest="target_dir")


def run(options, requirements):
    if options.target_dir:
        options.ignore_installed = True
    if not options.use_user_site and not site_writable():
        options.use_user_site = True
    target = options.target_dir or options.prefix_path
    for requirement in requirements:
        install(requirement, target, user=options.use_user_site)
    return 0


def site_writable():
    return os.access(sys.prefix, os.W_OK)


def in_virtualenv():
    return sys.prefix != sys.base_prefix


def install(requirement, target, user):
    print(requirement, target, user)
"""

# outside a virtual environment, and not as root, install into the user's site directory
USER_DEFAULT = """Subject: Default to --user outside virtual environments
Bug: https://github.com/example/tool/issues/412
Bug-Debian: https://bugs.debian.org/725848
---
--- a/tool/install.py
+++ b/tool/install.py
@@ -11,6 +11,9 @@ def add_options(parser):
 def run(options, requirements):
     if options.target_dir:
         options.ignore_installed = True
+    if not (options.use_user_site or options.prefix_path or options.target_dir):
+        if not in_virtualenv() and os.geteuid() != 0:
+            options.use_user_site = True
     if not options.use_user_site and not site_writable():
         options.use_user_site = True
     target = options.target_dir or options.prefix_path
"""

# upstream resolves the target first now and names the user scheme in a helper of its own
INSTALL_NEW = INSTALL_OLD.replace(
    """    if options.target_dir:
        options.ignore_installed = True
    if not options.use_user_site and not site_writable():
        options.use_user_site = True
""",
    """    if options.target_dir:
        options.target_dir = os.path.abspath(options.target_dir)
        options.ignore_installed = True
    options.use_user_site = decide_user_install(options)
""",
).replace(
    "def site_writable():",
    """def decide_user_install(options):
    if options.use_user_site:
        return True
    return not site_writable()


def site_writable():""",
)

# the same patch, when the pin's changelog names another issue
USER_DEFAULT_OTHER_BUG = USER_DEFAULT.replace("issues/412", "issues/415")
# the same patch naming the number as where its code came from, not as its issue
USER_DEFAULT_ORIGIN = USER_DEFAULT.replace(
    "Bug: https://github.com/example/tool/issues/412",
    "Origin: upstream, https://github.com/example/tool/pull/412",
)


def test_a_failing_patch_whose_issue_the_pin_names_is_a_look(tmp_path: Path) -> None:
    old = {"CHANGES.rst": CHANGES_OLD, "tool/install.py": INSTALL_OLD}
    new = {"CHANGES.rst": CHANGES_NEW, "tool/install.py": INSTALL_NEW}
    [verdict] = judge(tmp_path, new, [("user-default.patch", USER_DEFAULT)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == (
        "conflict",
        "look",
        "fixed-before-pin",
    )
    assert verdict.rewritten == (
        "the old pin's changelog already names #412, the issue its Bug field names (CHANGES.rst "
        "line 7: `- Install into the user's site directory when the system one is not "
        "writable. (#412)`): upstream fixed that issue its own way before the pin"
    )
    assert verdict.summary.endswith(
        f"; {verdict.rewritten}; to do: look (upstream fixed the issue it names before the "
        "old pin; decide whether the patch is still wanted on top of that fix)"
    )


def test_a_failing_patch_whose_issue_the_pin_does_not_name_is_a_port(tmp_path: Path) -> None:
    old = {"CHANGES.rst": CHANGES_OLD, "tool/install.py": INSTALL_OLD}
    new = {"CHANGES.rst": CHANGES_NEW, "tool/install.py": INSTALL_NEW}
    [verdict] = judge(tmp_path, new, [("user-default.patch", USER_DEFAULT_OTHER_BUG)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == ("conflict", "port", "hunks-fail")
    assert verdict.rewritten == ""


def test_a_number_the_origin_names_is_no_such_fact(tmp_path: Path) -> None:
    # an earlier fix released from the same pull request: the patch may be a further fix
    old = {"CHANGES.rst": CHANGES_OLD, "tool/install.py": INSTALL_OLD}
    new = {"CHANGES.rst": CHANGES_NEW, "tool/install.py": INSTALL_NEW}
    [verdict] = judge(tmp_path, new, [("user-default.patch", USER_DEFAULT_ORIGIN)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == ("conflict", "port", "hunks-fail")


def test_a_patch_that_still_applies_is_carried(tmp_path: Path) -> None:
    old = {"CHANGES.rst": CHANGES_OLD, "tool/install.py": INSTALL_OLD}
    new = {"CHANGES.rst": CHANGES_NEW, "tool/install.py": INSTALL_OLD}
    [verdict] = judge(tmp_path, new, [("user-default.patch", USER_DEFAULT)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == ("clean", "carry", "applies")


def test_without_the_pin_the_mention_cannot_be_dated(tmp_path: Path) -> None:
    # the new release's changelog names the issue, and nothing says it is not new
    new = {"CHANGES.rst": CHANGES_NEW, "tool/install.py": INSTALL_NEW}
    [verdict] = judge(tmp_path, new, [("user-default.patch", USER_DEFAULT)])
    assert (verdict.action, verdict.rule, verdict.rewritten) == ("look", "changelog-mention", "")
