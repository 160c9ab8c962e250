"""Tiles of one face in one photo read alike: a sure reading helps an unsure one that looks the same.

A hand shows many faces more than once (a pung, a pair, a chow beside a pung of one of its tiles), and all the
tiles of a photo come from one set, printed and lit alike. The tile classifier reads each box alone, so in an
art style it never saw it may read three tiles of a pung as 5m, 5m and 3m. What its last layer sees of each
crop (``TileClassifier.read_features``) tells the faces of one set apart far better than their readings do:
on the held-out style's meld scenes (seeds 10 and 17, 6,370 tiles the detector found) two tiles of one face
have a median cosine similarity of 0.98, two of different faces 0.34, and only 0.1 % of the different pairs
reach 0.85 (pixels compared directly, stop 32, told the two apart hardly at all: 0.26 against 0.19).

So each suit or honour tile's reading is weighed with the readings of the tiles that look like it
(``share_readings``): its log-probabilities, relative to its best, plus those of every such tile, each weighted
by how far its similarity passes ``SAME_FACE``; when another face wins, the tile's probabilities of its old and
new face are swapped, so that its confidence stays what its best reading had and the old face becomes its next
reading. Flowers and seasons take no part (a hand holds each once, and a set may print them alike but for a
numeral), nor do face-down tiles.

>>> probs = np.zeros((3, 44), np.float32)
>>> probs[0, 4], probs[0, 2] = 0.9, 0.05      # 5m, surely
>>> probs[1, 4], probs[1, 2] = 0.85, 0.1      # 5m, surely
>>> probs[2, 2], probs[2, 4] = 0.5, 0.4       # 3m, unsurely, with 5m next
>>> seen = np.array([[1.0, 0.0], [0.99, 0.1], [0.98, 0.15]], np.float32)   # the three look alike
>>> shared = share_readings(probs, seen)
>>> int(shared[2].argmax()), round(float(shared[2, 4]), 2), round(float(shared[2, 2]), 2)
(4, 0.5, 0.4)
>>> apart = np.array([[1.0, 0.0], [0.99, 0.1], [0.0, 1.0]], np.float32)  # the third looks like neither
>>> int(share_readings(probs, apart)[2].argmax())
2
"""

from __future__ import annotations

import numpy as np

from vision.classes import NUM_CLASSES, RIICHI_IDS

SAME_FACE = 0.9
"""Cosine similarity of two tiles' features from which the one's reading weighs on the other's (weight 0 at it,
1 at identical features). Chosen at stop 33 on stop 32's cached readings of the held-out style's meld scenes
(seeds 10, 12, 17, 18; 800 hands, each tile's next readings standing for its probabilities): at 0.9, 21 tiles are
read again and 652 hands come out exact (646 without) with 20 read wrong without a question, as before; at 0.85,
24 tiles and 651 hands. The detector itself then read 651 (``models/README.md``, "Stop 33")."""
FLOOR = 0.02
"""A face a tile gives under this share of its best reading's probability counts as this (one unlikely reading
must not veto what its look-alikes say)."""
_PLAYING = np.array(RIICHI_IDS)


def share_readings(probs: np.ndarray, features: np.ndarray, among: np.ndarray | None = None) -> np.ndarray:
    """The classifier's probabilities (N x 44, the 43 classes then "none") with each suit or honour tile's
    reading weighed with those of the tiles that look like it (see the module's doc). ``features``: N x D, what
    the classifier's last layer read of each box; ``among``: the boxes that take part (a mask; default all),
    so that boxes the detector will not report neither vote nor are voted on."""
    probs = np.array(probs, dtype=np.float32, copy=True)
    best = probs[:, :NUM_CLASSES].argmax(axis=1)
    taking = np.isin(best, _PLAYING)
    if among is not None:
        taking &= np.asarray(among, dtype=bool)
    rows = np.flatnonzero(taking)
    if len(rows) < 2:
        return probs
    seen = features[rows].astype(np.float64)
    seen /= np.maximum(np.linalg.norm(seen, axis=1, keepdims=True), 1e-12)
    similarity = seen @ seen.T
    np.fill_diagonal(similarity, 0.0)
    weight = np.clip((similarity - SAME_FACE) / (1.0 - SAME_FACE), 0.0, None)
    relative = probs[rows][:, _PLAYING] / np.maximum(probs[rows, best[rows]], 1e-12)[:, None]
    logs = np.log(np.maximum(relative, FLOOR))
    choice = _PLAYING[(logs + weight @ logs).argmax(axis=1)]
    voted = weight.any(axis=1)  # a tile with no look-alike keeps its reading
    for row, new in zip(rows[voted], choice[voted]):
        old = best[row]
        if new != old:
            probs[row, old], probs[row, new] = probs[row, new], probs[row, old]
    return probs
