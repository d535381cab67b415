"""A hunk that fails in its own file is looked for in another file of the new release (the
code may have moved there), but what that other file lacks is no evidence: it may never
have had the lines the hunk replaces. Seen on a Debian series of a web framework whose
patch renames the bundled script in several templates: the hunk of a template whose new
release loads a newer script is no longer upstream because another template its context
lines match lacks the lines it replaces."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

ERROR_PAGE = """<h2>Overriding this template</h2>

<p>Override this template at <code>webkit/docs/error.html</code>.</p>

{% endif %}



        <script src="{% static 'webkit/js/jquery-{version}.min.js' %}"></script>
    </body>
</html>
"""
ADMIN_PAGE = """{% block script %}
        <script src="{% static "webkit/js/jquery-{version}.min.js" %}"></script>
        <script src="{% static "webkit/js/csrf.js" %}"></script>
        <script src="{% static "webkit/js/default.js" %}"></script>
      {% endblock %}
    </body>
  {% endblock %}
</html>
"""
PACKAGED_NAMES = """--- a/webkit/templates/docs/error.html
+++ b/webkit/templates/docs/error.html
@@ -6,6 +6,6 @@
 
 
 
-        <script src="{% static 'webkit/js/jquery-3.5.1.min.js' %}"></script>
+        <script src="{% static 'webkit/js/jquery.min.js' %}"></script>
     </body>
 </html>
"""


def _tree(version: str) -> dict[str, str]:
    return {
        "webkit/templates/docs/error.html": ERROR_PAGE.replace("{version}", version),
        "webkit/templates/admin.html": ADMIN_PAGE.replace("{version}", version),
    }


def test_a_hunk_is_not_upstream_by_what_another_file_lacks(tmp_path: Path) -> None:
    [verdict] = judge(tmp_path, _tree("3.7.1"), [("names.patch", PACKAGED_NAMES)], _tree("3.5.1"))
    [hunk] = verdict.hunks
    assert (verdict.verdict, verdict.action, hunk.status, hunk.how) == (
        "conflict",
        "port",
        "fails",
        "",
    )
    assert verdict.summary == (
        "webkit/templates/docs/error.html #1 fails at fuzz 0 (closest: "
        "webkit/templates/docs/error.html line 6, 5 of 6 lines match); "
        "webkit/templates/docs/error.html #1: its context is in webkit/templates/admin.html "
        "(line 2, 2 of 3 context lines there); 0 of 1 substantive added lines already "
        "upstream (strongest: webkit/templates/docs/error.html 0/1); to do: port (rework the "
        "failing hunks)"
    )
