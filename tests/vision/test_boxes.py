"""Box arithmetic: IoU, NMS (class-aware and across classes), letterbox maths, slicing plans, decoding."""

from __future__ import annotations

import numpy as np
import pytest

from vision.boxes import (class_aware_nms, ioa_matrix, ios_matrix, iou_matrix, letterbox_canvas, letterbox_geometry,
                          nms, plan_slices, unletterbox)
from vision.classes import NUM_CLASSES
from vision.detector import decode, letterbox, letterbox_both_ways, merge


def test_iou_and_ios():
    a = np.array([[0, 0, 10, 10], [0, 0, 4, 4]], dtype=float)
    b = np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30]], dtype=float)
    iou = iou_matrix(a, b)
    assert iou[0] == pytest.approx([1.0, 50 / 150, 0.0])
    assert iou[1, 0] == pytest.approx(16 / 100)
    assert ios_matrix(a, b)[1, 0] == pytest.approx(1.0)  # the small box lies inside
    assert iou_matrix(np.zeros((0, 4)), b).shape == (0, 3)
    ioa = ioa_matrix(a, b)  # the share of each box of a that lies in each box of b
    assert ioa[0] == pytest.approx([1.0, 0.5, 0.0])
    assert ioa[1] == pytest.approx([1.0, 0.0, 0.0])
    assert ioa_matrix(b, a)[1] == pytest.approx([0.5, 0.0])
    assert ioa_matrix(np.array([[3, 3, 3, 9.0]]), b)[0] == pytest.approx([0.0, 0.0, 0.0])  # no area: no share


def test_nms_keeps_the_best_of_overlapping_boxes():
    boxes = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 0, 30, 10], [0.5, 0, 10.5, 10]], dtype=float)
    scores = np.array([0.6, 0.9, 0.7, 0.8])
    assert nms(boxes, scores, 0.5).tolist() == [1, 2]
    assert sorted(nms(boxes, scores, 0.99).tolist()) == [0, 1, 2, 3]
    assert nms(np.zeros((0, 4)), np.zeros(0), 0.5).tolist() == []


def test_class_aware_nms_then_across_classes():
    boxes = np.array([[0, 0, 10, 10], [0, 0, 10, 10.5], [1, 0, 11, 10], [40, 0, 50, 10]], dtype=float)
    scores = np.array([0.9, 0.8, 0.7, 0.6])
    classes = np.array([1, 2, 1, 2])
    # within class 1, box 2 (IoU 0.82 with box 0) goes; across classes, box 1 (IoU 0.95 with box 0) goes
    assert class_aware_nms(boxes, scores, classes, 0.5, cross_class_iou=0.8).tolist() == [0, 3]
    # without the cross-class step both readings of the first tile stay
    assert class_aware_nms(boxes, scores, classes, 0.5, cross_class_iou=None).tolist() == [0, 1, 3]
    # neighbouring tiles touching each other are never merged
    row = np.array([[i * 10, 0, i * 10 + 10, 14] for i in range(5)], dtype=float)
    assert len(class_aware_nms(row, np.full(5, 0.9), np.zeros(5, int))) == 5


def test_merge_drops_a_fragment_inside_a_whole_tile_when_sliced():
    boxes = np.array([[0, 0, 30, 40], [0, 0, 12, 40]], dtype=float)  # a slice saw the left part of the tile
    scores, classes = np.array([0.9, 0.8]), np.array([5, 5])
    assert merge(boxes, scores, classes, sliced=True).tolist() == [0]
    assert sorted(merge(boxes, scores, classes, sliced=False).tolist()) == [0, 1]


@pytest.mark.parametrize("width, height", [(640, 640), (1280, 960), (480, 640), (4032, 3024), (333, 1000), (100, 50)])
def test_letterbox_geometry_and_its_inverse(width, height):
    size = 320
    scale, left, top, new_w, new_h = letterbox_geometry(width, height, size)
    assert max(new_w, new_h) == size and min(left, top) == 0
    assert left + new_w <= size and top + new_h <= size
    # the same formula as ultralytics' LetterBox(auto=False, center=True)
    r = min(size / height, size / width)
    dw, dh = (size - round(width * r)) / 2, (size - round(height * r)) / 2
    assert (left, top) == (round(dw - 0.1), round(dh - 0.1))
    boxes = np.array([[0, 0, width, height], [width * 0.25, height * 0.5, width * 0.5, height * 0.75]])
    in_model = boxes * scale + np.array([left, top, left, top])
    back = unletterbox(in_model, scale, left, top, width, height)
    assert back == pytest.approx(boxes, abs=1e-6)


@pytest.mark.parametrize("width, height", [(640, 640), (1280, 960), (480, 640), (4032, 3024), (333, 1000), (100, 50),
                                           (600, 400), (1920, 1080)])
def test_a_snug_letterbox_pads_each_side_only_to_the_stride(width, height):
    """ultralytics' LetterBox(auto=True): the resized image padded to a multiple of the stride, centred."""
    size, stride = 320, 32
    scale, left, top, new_w, new_h = letterbox_geometry(width, height, size, stride)
    square_scale, _, _, square_w, square_h = letterbox_geometry(width, height, size)
    assert (scale, new_w, new_h) == (square_scale, square_w, square_h) and max(new_w, new_h) == size
    canvas_w, canvas_h = letterbox_canvas(new_w, new_h, size, stride)
    assert canvas_w % stride == 0 and canvas_h % stride == 0
    assert new_w <= canvas_w < new_w + stride and new_h <= canvas_h < new_h + stride
    r = min(size / height, size / width)
    dw, dh = np.mod(size - round(width * r), stride) / 2, np.mod(size - round(height * r), stride) / 2
    assert (left, top) == (round(dw - 0.1), round(dh - 0.1))
    assert letterbox_canvas(new_w, new_h, size) == (size, size)  # without a stride: the square


def test_a_snug_letterbox_gives_a_smaller_input_with_the_same_picture():
    rng = np.random.default_rng(5)
    image = rng.integers(0, 256, (300, 400, 3), dtype=np.uint8)
    square, (scale, left, top) = letterbox(image, 64)
    snug, (snug_scale, snug_left, snug_top) = letterbox(image, 64, stride=16)
    assert square.shape == (1, 3, 64, 64) and snug.shape == (1, 3, 48, 64)
    assert (snug_scale, snug_left, snug_top) == (scale, 0, 0) and (left, top) == (0, 8)
    assert np.array_equal(snug[0], square[0, :, 8:56])   # the same resized picture, none of the square's padding
    odd, (_, odd_left, odd_top) = letterbox(rng.integers(0, 256, (250, 400, 3), dtype=np.uint8), 64, stride=16)
    assert odd.shape == (1, 3, 48, 64) and (odd_left, odd_top) == (0, 4)   # 40 rows resized, 8 of grey round them
    assert odd[0, :, :4] == pytest.approx(np.full((3, 4, 64), 114 / 255))


def test_letterbox_pads_grey_and_keeps_the_picture_centred():
    image = np.zeros((100, 200, 3), dtype=np.uint8)
    image[:, :, 0] = 255
    tensor, (scale, left, top) = letterbox(image, 64)
    assert tensor.shape == (1, 3, 64, 64) and tensor.dtype == np.float32
    assert scale == pytest.approx(0.32) and (left, top) == (0, 16)
    assert tensor[0, :, 0, 0] == pytest.approx([114 / 255] * 3)  # padding above
    assert tensor[0, :, 32, 32] == pytest.approx([1.0, 0.0, 0.0])  # the picture


@pytest.mark.parametrize("shape", [(100, 200), (211, 97), (1125, 2000)])
def test_the_mirrored_letterbox_is_the_mirrored_photo_letterboxed(shape):
    """The localiser's mirrored pass mirrors the resized photo, not the photo (a 12-MP photo's copy cost 8 ms):
    the input is the one the mirrored photo gives, padding and all (an odd padding puts the picture where
    ``letterbox`` puts it, not mirrored by a pixel)."""
    rng = np.random.default_rng(3)
    image = rng.integers(0, 256, (*shape, 3), dtype=np.uint8)
    for size, stride in ((64, None), (320, None), (64, 16), (320, 32)):
        straight, mirrored, geometry = letterbox_both_ways(image, size, stride)
        expected, expected_geometry = letterbox(np.ascontiguousarray(image[:, ::-1]), size, stride)
        assert geometry == expected_geometry and geometry == letterbox(image, size, stride)[1]
        assert np.array_equal(straight, letterbox(image, size, stride)[0])
        assert np.abs(mirrored - expected).max() <= 1 / 255 + 1e-6   # OpenCV's rounding, at most one grey level
        assert np.mean(mirrored != expected) < 0.001
        assert straight.flags.c_contiguous and mirrored.flags.c_contiguous


def test_unletterbox_clips_to_the_photo():
    out = unletterbox(np.array([[-5, -5, 400, 400]], dtype=float), 0.5, 0, 10, 640, 600)
    assert out.tolist() == [[0, 0, 640, 600]]


def test_decode_reads_ultralytics_layout():
    n = 5
    output = np.zeros((1, 4 + NUM_CLASSES, n), dtype=np.float32)
    output[0, :4, 0] = [100, 50, 20, 30]  # cx cy w h
    output[0, 4 + 7, 0] = 0.9
    output[0, 4 + 8, 0] = 0.3
    output[0, :4, 1] = [10, 10, 4, 4]
    output[0, 4 + 42, 1] = 0.1  # below the threshold
    boxes, scores, classes = decode(output, 0.25)
    assert boxes.tolist() == [[90, 35, 110, 65]]
    assert scores.tolist() == pytest.approx([0.9]) and classes.tolist() == [7]
    assert len(decode(output, 0.05)[0]) == 2
    with pytest.raises(Exception):
        decode(np.zeros((1, 3, 4)), 0.25)


def test_no_slicing_for_photos_the_model_sees_well():
    assert plan_slices(640, 640, 320) == []
    assert plan_slices(640, 480, 640) == []
    assert plan_slices(1280, 1280, 640) == []


@pytest.mark.parametrize("width, height, size", [(1280, 960, 320), (4032, 3024, 320), (3024, 4032, 640),
                                                  (9000, 1000, 320), (2000, 1500, 640)])
def test_slices_cover_the_photo_and_overlap(width, height, size):
    slices = plan_slices(width, height, size)
    assert slices and len(slices) <= 16
    covered = np.zeros((height // 8 + 1, width // 8 + 1), dtype=bool)
    for s in slices:
        assert 0 <= s.x0 < s.x1 <= width and 0 <= s.y0 < s.y1 <= height
        covered[s.y0 // 8:(s.y1 + 7) // 8, s.x0 // 8:(s.x1 + 7) // 8] = True
    assert covered[: height // 8, : width // 8].all()
    xs = sorted({(s.x0, s.x1) for s in slices})
    for (a0, a1), (b0, b1) in zip(xs, xs[1:]):  # neighbours share at least a fifth of a window
        assert a1 - b0 >= 0.2 * (a1 - a0)


def test_box_voting_moves_a_kept_box_to_the_score_weighted_mean_of_the_boxes_over_it():
    from vision.boxes import vote_boxes

    tile = [100, 100, 140, 156]
    boxes = np.array([tile, [102, 100, 142, 156], [100, 103, 140, 159], [130, 100, 170, 156]], dtype=np.float32)
    scores = np.array([0.9, 0.9, 0.9, 0.95])
    keep = np.array([3, 0])
    voted = vote_boxes(boxes, scores, keep, iou_threshold=0.85, power=1.0)
    assert voted[0].tolist() == boxes[3].tolist()  # its neighbour (IoU 0.2) does not vote
    assert voted[1] == pytest.approx([100.667, 101.0, 140.667, 157.0], abs=1e-3)  # three boxes over the tile
    # a box under the threshold does not vote; a surer box weighs more, the more the higher the power
    assert vote_boxes(boxes, scores, keep[1:], iou_threshold=0.95)[0].tolist() == boxes[0].tolist()
    scores = np.array([0.9, 0.3, 0.3, 0.95])
    light, heavy = (vote_boxes(boxes, scores, keep[1:], iou_threshold=0.85, power=p)[0] for p in (1.0, 4.0))
    assert 100 < light[0] < 100.667 and 100 < heavy[0] < light[0]


def test_box_voting_leaves_a_degenerate_box_and_an_empty_keep_alone():
    from vision.boxes import vote_boxes

    boxes = np.array([[5, 5, 5, 9], [0, 0, 10, 10]], dtype=np.float32)  # no area: its IoU with itself is 0
    assert vote_boxes(boxes, np.array([0.5, 0.9]), np.array([0])).tolist() == [[5, 5, 5, 9]]
    assert vote_boxes(boxes, np.array([0.5, 0.9]), np.zeros(0, dtype=np.int64)).shape == (0, 4)
