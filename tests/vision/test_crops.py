"""vision.crops: the classifier's input is cut the same way at training and at inference."""

from __future__ import annotations

import numpy as np
from PIL import Image

from vision.crops import CROP_HEIGHT, CROP_WIDTH, MARGIN, STRETCHED_ASPECT, tile_crop, tile_crops, to_tensor


def test_every_crop_has_the_same_portrait_shape():
    image = np.zeros((200, 300, 3), dtype=np.uint8)
    boxes = np.array([[10, 10, 40, 50], [50, 10, 150, 40], [0, 0, 300, 200], [5, 5, 6, 6]], dtype=np.float32)
    crops = tile_crops(image, boxes)
    assert crops.shape == (4, CROP_HEIGHT, CROP_WIDTH, 3) and crops.dtype == np.uint8


def test_a_wide_box_is_turned_a_quarter():
    # a wide box whose left half is white and right half black: turned portrait (90 degrees
    # counter-clockwise), the left half lands at the bottom
    array = np.zeros((100, 200, 3), dtype=np.uint8)
    array[20:60, 20:80] = 255
    crop = tile_crop(Image.fromarray(array), (20, 20, 140, 60), margin=0.0)
    top, bottom = crop[: CROP_HEIGHT // 2].mean(), crop[CROP_HEIGHT // 2:].mean()
    assert bottom > 200 and top < 50


def test_a_box_flatter_than_any_lying_tile_is_a_squeezed_upright_one_and_is_not_turned():
    # a squeezed photo's upright tile: left half white, right half black, twelve times wider than tall;
    # the crop is only resized (the left half stays left), while a box at the limit is still turned
    array = np.zeros((100, 400, 3), dtype=np.uint8)
    array[40:60, 20:140] = 255
    crop = tile_crop(Image.fromarray(array), (20, 40, 260, 60), margin=0.0)
    assert crop[:, : CROP_WIDTH // 2].mean() > 200 and crop[:, CROP_WIDTH // 2:].mean() < 50
    width = int(20 * STRETCHED_ASPECT)
    array[:] = 0
    array[40:60, 20:20 + width // 2] = 255
    limit = tile_crop(Image.fromarray(array), (20, 40, 20 + width, 60), margin=0.0)
    assert limit[CROP_HEIGHT // 2:].mean() > 200 and limit[: CROP_HEIGHT // 2].mean() < 50


def test_an_upright_box_keeps_its_orientation():
    array = np.zeros((200, 100, 3), dtype=np.uint8)
    array[20:80, 20:60] = 255  # the box's top half is white
    crop = tile_crop(Image.fromarray(array), (20, 20, 60, 140), margin=0.0)
    assert crop[: CROP_HEIGHT // 2].mean() > 200 and crop[CROP_HEIGHT // 2:].mean() < 50


def test_the_margin_takes_in_the_edges_and_outside_the_photo_is_black():
    array = np.full((100, 100, 3), 200, dtype=np.uint8)
    crop = tile_crop(Image.fromarray(array), (0, 0, 48, 64))  # the margin reaches outside the photo
    assert MARGIN > 0
    assert crop[0, 0].max() == 0 and crop[-1, -1].min() == 200


def test_to_tensor_is_nchw_in_unit_range():
    crops = np.full((2, CROP_HEIGHT, CROP_WIDTH, 3), 255, dtype=np.uint8)
    tensor = to_tensor(crops)
    assert tensor.shape == (2, 3, CROP_HEIGHT, CROP_WIDTH) and tensor.dtype == np.float32
    assert tensor.max() == 1.0


def test_a_box_maps_into_its_crop_and_back_whichever_way_the_crop_is_turned():
    from vision.crops import box_from_crop, box_to_crop, crop_frame

    for box in ((10, 20, 50, 80), (100, 40, 180, 90), (5, 5, 305, 35)):  # upright, sideways, squeezed flat
        frame = crop_frame(box)
        assert frame.turned == (box == (100, 40, 180, 90))
        shares = box_to_crop(box, frame)
        assert np.all((shares > 0) & (shares < 1))
        assert np.allclose(box_from_crop(shares, frame), box, atol=1e-3)
    # in a turned crop, the box's left edge is the crop's bottom edge
    frame = crop_frame((100, 40, 180, 90))
    tighter = box_to_crop((110, 40, 180, 90), frame)
    assert tighter[3] < box_to_crop((100, 40, 180, 90), frame)[3]


def test_drawn_boxes_that_stray_keep_the_localisers_box():
    from vision.crops import boxes_from_crops

    boxes = np.array([[10, 20, 50, 80], [100, 40, 180, 90]], dtype=np.float32)
    drawn = np.array([[0.1, 0.1, 0.9, 0.9], [0.0, 0.0, 0.1, 0.1]], dtype=np.float32)  # the second far off
    out = boxes_from_crops(boxes, drawn)
    assert not np.allclose(out[0], boxes[0]) and np.allclose(out[1], boxes[1])
    assert np.allclose(boxes_from_crops(boxes, np.full((2, 4), np.nan)), boxes)
