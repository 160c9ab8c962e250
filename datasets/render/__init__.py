"""The synthetic photo renderer: random valid hands laid out on a table, photographed, with exact labels.

- :func:`render_photo` (scene.py): one photo from (seed, index), its YOLO lines and its sidecar.
- :func:`render_set` (batch.py): many photos in parallel into images/, labels/, sidecars/, data.yaml.
- :func:`contact_sheet` (batch.py): photos with their labels drawn, for people to look at.
- :func:`select_styles`: the art styles to render with (training styles by default).
- :func:`procedural_bundle` (procedural_art.py): a stand-in art bundle drawn in code.

See docs/renderer.md.
"""

from __future__ import annotations

from typing import Any, Sequence

from datasets.render.batch import contact_sheet, draw_labels, render_set
from datasets.render.procedural_art import procedural_bundle
from datasets.render.scene import Photo, RenderOptions, render_photo

__all__ = ["Photo", "RenderOptions", "contact_sheet", "draw_labels", "procedural_bundle", "render_photo",
           "render_set", "select_styles"]


def select_styles(bundle: Any, names: Sequence[str] | None = None, held_out: bool = False) -> list[Any]:
    """The styles to render with: those named (any style, held out or not), else the held-out style
    alone with ``held_out``, else every training style. Raises ValueError with a message for people."""
    if names:
        by_name = {s.name: s for s in bundle.styles}
        missing = [n for n in names if n not in by_name]
        if missing:
            raise ValueError(f"No art style named {', '.join(repr(n) for n in missing)}; the bundle has: "
                             f"{', '.join(sorted(by_name))}.")
        return [by_name[n] for n in names]
    if held_out:
        try:
            style = bundle.held_out_style()
        except ValueError:
            style = None
        if style is None:
            raise ValueError("The art bundle has no held-out style.")
        return [style]
    styles = list(bundle.training_styles())
    if not styles:
        raise ValueError("The art bundle has no training styles.")
    return styles
