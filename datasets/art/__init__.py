"""The tile art bundle: every tile face in several art styles, for the synthetic photo renderer.

``load_bundle(path)`` reads a bundle (datasets/art/bundle.py has the format); ``prepare_art(out_dir)``
builds one from the KDE and GNOME Mahjongg tilesets and our own painter (datasets/art/prepare.py).
docs/art.md says where the art comes from, its licenses, and which style is held out.
"""

from datasets.art.bundle import CODES, DEFAULT_FACE_SIZE, ArtBundle, ArtStyle, load_bundle

__all__ = ["ArtBundle", "ArtStyle", "CODES", "DEFAULT_FACE_SIZE", "HELD_OUT", "MissingPackagesError",
           "load_bundle", "prepare_art"]


def __getattr__(name: str):
    # prepare is imported on first use, so that `python -m datasets.art.prepare` runs it only once
    if name in ("prepare_art", "HELD_OUT", "MissingPackagesError"):
        from datasets.art import prepare

        return getattr(prepare, name)
    raise AttributeError(f"module 'datasets.art' has no attribute {name!r}")
