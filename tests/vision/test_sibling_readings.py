import numpy as np

from vision.classes import CLASS_NAMES
from vision.sibling_readings import SAME_FACE, share_readings

FIVE_M, THREE_M, ONE_F, BACK = (CLASS_NAMES.index(c) for c in ("5m", "3m", "1f", "back"))


def _probs(*rows):
    """Rows of {class id: probability}; what is left goes to "none"."""
    out = np.zeros((len(rows), len(CLASS_NAMES) + 1), np.float32)
    for i, row in enumerate(rows):
        for c, p in row.items():
            out[i, c] = p
        out[i, -1] = 1 - sum(row.values())
    return out


def _alike(*angles):
    """Features at these angles (radians) on a circle: cosine similarity is the cosine of their difference."""
    return np.array([[np.cos(a), np.sin(a)] for a in angles], np.float32)


def test_an_unsure_tile_reads_as_its_sure_look_alikes():
    probs = _probs({FIVE_M: 0.9, THREE_M: 0.05}, {FIVE_M: 0.85, THREE_M: 0.1}, {THREE_M: 0.5, FIVE_M: 0.4})
    shared = share_readings(probs, _alike(0.0, 0.05, 0.1))
    assert shared[2].argmax() == FIVE_M
    # the two faces' probabilities swapped: its confidence stays its best reading's, the old face comes next
    assert shared[2, FIVE_M] == probs[2, THREE_M] and shared[2, THREE_M] == probs[2, FIVE_M]
    assert np.array_equal(shared[:2], probs[:2]) and np.array_equal(shared[2, -1], probs[2, -1])
    assert np.array_equal(probs[2].argmax(), THREE_M)  # the input is not changed


def test_tiles_that_do_not_look_alike_keep_their_readings():
    probs = _probs({FIVE_M: 0.9}, {FIVE_M: 0.85}, {THREE_M: 0.5, FIVE_M: 0.4})
    below = np.arccos(SAME_FACE) * 1.05  # just under SAME_FACE from the first two
    assert np.array_equal(share_readings(probs, _alike(0.0, 0.0, below)), probs)
    assert np.array_equal(share_readings(probs, _alike(0.0, 0.0, np.pi / 2)), probs)


def test_a_sure_reading_is_not_outvoted_by_an_unsure_look_alike():
    probs = _probs({FIVE_M: 0.95, THREE_M: 0.01}, {THREE_M: 0.45, FIVE_M: 0.35})
    shared = share_readings(probs, _alike(0.0, 0.05))
    assert shared[0].argmax() == FIVE_M and shared[1].argmax() == FIVE_M


def test_flowers_face_down_tiles_and_boxes_left_out_take_no_part():
    # a flower and a face-down tile look like the unsure 3m but neither votes nor is voted on
    probs = _probs({ONE_F: 0.9, FIVE_M: 0.05}, {BACK: 0.9}, {THREE_M: 0.5, FIVE_M: 0.4, ONE_F: 0.05},
                   {FIVE_M: 0.9})
    seen = _alike(0.0, 0.0, 0.0, 0.0)
    assert share_readings(probs, seen)[2].argmax() == FIVE_M  # the sure 5m does
    assert np.array_equal(share_readings(probs, seen, among=np.array([True, True, True, False])), probs)
    assert np.array_equal(share_readings(probs[:3], seen[:3]), probs[:3])


def test_nothing_to_share_among_fewer_than_two_tiles():
    probs = _probs({THREE_M: 0.5, FIVE_M: 0.4})
    assert np.array_equal(share_readings(probs, _alike(0.0)), probs)
    assert share_readings(probs[:0], _alike()[:0].reshape(0, 2)).shape == (0, len(CLASS_NAMES) + 1)
