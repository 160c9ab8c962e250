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


def _turned_tile(angle: float) -> tuple[Image.Image, np.ndarray]:
    """A photo of one 60 x 80 tile, its top half red and its bottom half blue, turned ``angle`` degrees
    counter-clockwise on a grey table, and the tile's axis-aligned box."""
    tile = Image.new("RGB", (60, 80), (255, 0, 0))
    tile.paste((0, 0, 255), (0, 40, 60, 80))
    mask = Image.new("L", (60, 80), 255).rotate(angle, expand=True, resample=Image.Resampling.BILINEAR)
    turned = tile.rotate(angle, expand=True, resample=Image.Resampling.BILINEAR)
    photo = Image.new("RGB", (200, 200), (128, 128, 128))
    left, top = 100 - turned.width // 2, 100 - turned.height // 2
    photo.paste(turned, (left, top), mask)
    x1, y1, x2, y2 = mask.point(lambda v: 255 if v > 128 else 0).getbbox()
    return photo, np.array([[left + x1, top + y1, left + x2, top + y2]], dtype=np.float32)


def _red_top_blue_bottom(crop: np.ndarray) -> bool:
    red = (crop[..., 0] > 150) & (crop[..., 2] < 100)
    blue = (crop[..., 2] > 150) & (crop[..., 0] < 100)
    top, bottom = slice(0, CROP_HEIGHT // 3), slice(2 * CROP_HEIGHT // 3, CROP_HEIGHT)
    return red[top].mean() > 0.6 and blue[bottom].mean() > 0.6


def test_an_upright_crop_stands_a_turned_face_upright():
    from vision.crops import upright_crops

    for angle in (0, 25, 40, 60, 90, 135, 200, 320):
        photo, box = _turned_tile(angle)
        axis = (90.0 + angle) % 180.0  # an axis has no sign: 200 degrees is 20 upside down
        crop = upright_crops(photo, box, np.array([axis]), margins=(0.0,), scale=1.0)[0][0]
        upside_down = crop[::-1, ::-1]
        assert _red_top_blue_bottom(crop if (angle + 90) % 360 < 180 else upside_down), angle
    # the box's crop as cut shows the turned tile and the table round it, not a face standing upright
    photo, box = _turned_tile(40)
    crop = tile_crops(photo, box, margin=0.0)[0]
    assert not _red_top_blue_bottom(crop) and not _red_top_blue_bottom(crop[::-1, ::-1])


def test_an_upright_crop_takes_in_more_with_each_margin():
    from vision.crops import upright_crops

    photo, box = _turned_tile(40)
    narrow, wide = upright_crops(photo, box, np.array([130.0]), margins=(0.0, 0.2), scale=1.0)
    table = lambda crop: (np.abs(crop.astype(int) - 128).max(axis=-1) < 20).mean()  # grey pixels
    assert table(wide[0]) > table(narrow[0]) + 0.05


def test_without_an_axis_or_for_a_stretched_box_the_upright_crop_is_the_crop_as_cut():
    from vision.crops import upright_crops

    photo, box = _turned_tile(40)
    stretched = np.array([[20, 90, 180, 120]], dtype=np.float32)  # 160 x 30: more than 3 times longer
    for boxes, axes in [(box, [np.nan]), (stretched, [90.0])]:
        (crop,) = upright_crops(photo, boxes, np.array(axes), margins=(0.12,))
        assert np.array_equal(crop, tile_crops(photo, boxes, margin=0.12))
    assert [c.shape for c in upright_crops(photo, np.zeros((0, 4)), np.zeros(0), margins=(0.04, 0.08))] == \
        [(0, CROP_HEIGHT, CROP_WIDTH, 3)] * 2


def test_as_rgb_keeps_an_rgb_picture_and_converts_the_others():
    """The crops are cut from the photo as it is when it is RGB already (``convert`` would copy it whole, once
    a batch of crops); a grey or RGBA picture is converted."""
    from vision.crops import as_rgb

    picture = Image.new("RGB", (8, 6), (10, 20, 30))
    assert as_rgb(picture) is picture
    grey = as_rgb(Image.new("L", (8, 6), 77))
    assert grey.mode == "RGB" and grey.getpixel((0, 0)) == (77, 77, 77)
    assert as_rgb(Image.new("RGBA", (8, 6), (1, 2, 3, 4))).mode == "RGB"


def test_a_16_bit_grey_picture_keeps_its_tones(tmp_path):
    """A 16-bit grey PNG (a scanner's or an editor's) was converted by Pillow's clipping, every pixel over 255
    white: the detector saw a blank page and found no tile (stop 55). Its tones now come down to 8 bits, whether
    Pillow opens it as "I;16" or "I"."""
    from vision.crops import as_rgb
    from vision.detector import load_image

    ramp = np.tile(np.linspace(0, 65535, 64).astype(np.uint16), (32, 1))
    path = tmp_path / "grey16.png"
    Image.fromarray(ramp).save(path)
    loaded = np.asarray(load_image(path))
    assert loaded.shape == (32, 64, 3) and loaded[0, 0, 0] == 0 and loaded[0, -1, 0] == 255
    assert 120 <= loaded[0, 32, 0] <= 135  # the middle of the ramp is mid grey, not white
    wide = as_rgb(Image.fromarray(ramp.astype(np.int32), "I"))
    assert wide.getpixel((32, 0))[0] == loaded[0, 32, 0]
    narrow = as_rgb(Image.fromarray(np.full((4, 4), 200, np.int32), "I"))  # 8-bit values held in "I"
    assert narrow.getpixel((0, 0)) == (200, 200, 200)


def test_a_face_many_times_the_crops_size_is_reduced_first_to_nearly_the_same_pixels(monkeypatch):
    """``REDUCING_GAP``: a face of a close-up (here 12 times the crop) is box-averaged down before it is turned and
    resized; the crops come out as the one-step resizing gives them, to a few grey levels."""
    import vision.crops as crops_module
    from vision.crops import upright_crops

    rng = np.random.default_rng(5)
    # a smooth random picture (noise blurred by upscaling), so that both resamplings see the same signal
    image = np.asarray(Image.fromarray(rng.integers(0, 256, (40, 40, 3), dtype=np.uint8)).resize((1200, 1200),
                                                                                                 Image.BICUBIC))
    boxes = np.array([[200.0, 150.0, 900.0, 1050.0], [560.0, 560.0, 620.0, 640.0]])
    axes = np.array([70.0, 90.0])
    reduced = upright_crops(image, boxes, axes, margins=(0.04, 0.16)) + [tile_crops(image, boxes)]
    monkeypatch.setattr(crops_module, "REDUCING_GAP", None)
    direct = upright_crops(image, boxes, axes, margins=(0.04, 0.16)) + [tile_crops(image, boxes)]
    for fast, slow in zip(reduced, direct):
        difference = np.abs(fast.astype(int) - slow.astype(int))
        assert difference.mean() < 2.0 and np.percentile(difference, 99) < 12
        assert np.array_equal(fast[1], slow[1])   # a small face is cut as before, to the pixel


def test_an_upright_crop_cut_alone_with_the_same_room_is_the_crop_cut_with_every_margin():
    """``room``: the detector cuts the crops at the training's margin first and the others only for the boxes it
    reads again (``Detector._crop_readings``); with room made for the widest margin each time, each crop is the
    same to the pixel as when all are cut together, here for a small face and for a close-up's, which is reduced
    before it is turned (``REDUCING_GAP``: the box averages start where the patch does)."""
    from vision.crops import upright_crops

    rng = np.random.default_rng(7)
    image = np.asarray(Image.fromarray(rng.integers(0, 256, (40, 40, 3), dtype=np.uint8)).resize((1200, 1200),
                                                                                                 Image.BICUBIC))
    boxes = np.array([[200.0, 150.0, 900.0, 1050.0], [561.3, 557.8, 621.9, 640.2]])
    axes = np.array([70.0, 105.0])
    margins = (0.04, 0.08, 0.12, 0.16)
    together = upright_crops(image, boxes, axes, margins=margins)
    (first,) = upright_crops(image, boxes, axes, margins=(0.08,), room=0.16)
    rest = upright_crops(image, boxes, axes, margins=(0.04, 0.12, 0.16), room=0.16)
    for alone, all_at_once in zip([rest[0], first, *rest[1:]], together):
        assert np.array_equal(alone, all_at_once)
    # without that room the close-up's patch starts elsewhere, and its crop is cut from other box averages
    (narrow_room,) = upright_crops(image, boxes, axes, margins=(0.08,))
    assert not np.array_equal(narrow_room[0], together[1][0])


def test_a_turn_samples_where_pillows_rotate_samples_to_one_grey_level():
    """``turned`` (OpenCV's warpAffine with Pillow's geometry and arithmetic) gives a face's patch as ``Image.rotate``
    does inside the patch's rim, for any angle and centre, but for a value in a hundred or fewer, by one grey level; a
    quarter turn moves whole pixels, exactly."""
    from vision.crops import turned

    # a smooth picture with edges, as a tile's face is (pure noise would hide a misplaced sample)
    yy, xx = np.mgrid[:90, :90]
    picture = np.stack([(128 + 100 * np.sin(xx / 7.0)) * (yy % 30 < 20), 128 + 90 * np.cos(yy / 5.0),
                        (xx + 2 * yy) % 256], axis=-1).astype(np.uint8)
    patch = Image.fromarray(picture)
    for angle, cx, cy in [(37.0, 45.0, 45.0), (-61.5, 44.2, 46.7), (123.0, 45.5, 44.5), (5.0, 45.0, 45.0)]:
        ours = np.asarray(turned(patch, angle, (cx, cy)), dtype=int)
        pillows = np.asarray(patch.rotate(angle, Image.Resampling.BILINEAR, center=(cx, cy)), dtype=int)
        inside = (xx + 0.5 - cx) ** 2 + (yy + 0.5 - cy) ** 2 < 40 ** 2
        assert np.abs(ours - pillows)[inside].max() <= 1, angle
        assert np.mean(ours[inside] != pillows[inside]) < 0.01  # Pillow's arithmetic: truncated, not rounded
        # a misplaced sample (half a pixel off) would move these smooth edges by many grey levels
        shifted = np.asarray(patch.rotate(angle, Image.Resampling.BILINEAR, center=(cx + 0.5, cy)), dtype=int)
        assert np.abs(ours - shifted)[inside].max() > 8
    quarter = np.asarray(turned(patch, 90.0, (45.0, 45.0)))
    assert np.array_equal(quarter, np.rot90(picture))  # a square turned a quarter about its middle: no resampling
    assert turned(patch, 30.0, (45.0, 45.0)).size == patch.size
    corner = np.asarray(turned(patch, 45.0, (45.0, 45.0)))[:5, :5]
    assert corner.max() == 0  # nothing of the patch lands in the corners: black, as Pillow leaves them
