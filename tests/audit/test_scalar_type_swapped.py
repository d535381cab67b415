"""An insertion above a C function whose signature upstream gave another scalar type
(``int idx`` now ``uint32_t idx``) is refreshed (carried): the line beside it declares the
same function, as a line that only gained an annotation does. A parameter renamed, or a
scalar swapped for a type of another kind, leaves the place in doubt: *port*. The shape of
a library that marks the symbols it exports."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_support import judge

TAGS_OLD = """\
#include <stdlib.h>

#include "tags.h"

void tag_list_destroy(tag_list_t *list)
{
    free(list->items);
    free(list);
}

image_t *tag_to_image(tag_family_t *family, int index)
{
    image_t *image = image_create(family->width, family->width);
    draw_code(image, family->codes[index]);
    return image;
}
"""

# upstream gave the index a fixed-width unsigned type
TAGS_NEW = TAGS_OLD.replace(
    "tag_family_t *family, int index", "tag_family_t *family, uint32_t index"
)

EXPORT = """Subject: export only the public symbols
---
--- a/src/tags.c
+++ b/src/tags.c
@@ -9,6 +9,7 @@ void tag_list_destroy(tag_list_t *list)
     free(list);
 }
 
+__attribute__((visibility("default")))
 image_t *tag_to_image(tag_family_t *family, int index)
 {
     image_t *image = image_create(family->width, family->width);
"""


def test_an_insertion_above_a_signature_with_another_scalar_type_is_carried(
    tmp_path: Path,
) -> None:
    (verdict,) = judge(
        tmp_path, {"src/tags.c": TAGS_NEW}, [("export.patch", EXPORT)], old={"src/tags.c": TAGS_OLD}
    )
    assert (verdict.verdict, verdict.action, verdict.rule) == ("conflict", "carry", "refresh")
    assert verdict.refresh == (
        "its 1 hunk (1 file) lands with its + and - lines unchanged "
        "(beside context upstream edited)"
    )


@pytest.mark.parametrize(
    ("signature", "why"),
    [
        pytest.param(
            "tag_family_t *family, uint32_t position",
            "a parameter renamed: another line",
            id="name-changed",
        ),
        pytest.param(
            "tag_family_t *family, tag_code *code",
            "the scalar became a type of another kind, not a scalar or a _t type",
            id="scalar-to-struct",
        ),
    ],
)
def test_an_insertion_above_a_signature_changed_otherwise_is_ported(
    tmp_path: Path, signature: str, why: str
) -> None:
    new = TAGS_OLD.replace("tag_family_t *family, int index", signature)
    (verdict,) = judge(
        tmp_path, {"src/tags.c": new}, [("export.patch", EXPORT)], old={"src/tags.c": TAGS_OLD}
    )
    assert (verdict.verdict, verdict.action, verdict.refresh) == ("conflict", "port", ""), why
