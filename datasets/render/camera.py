"""A pinhole camera over the table, and the exact homographies it induces on planes.

World coordinates are millimetres: the table is the plane z = 0, z points up. Image coordinates are
continuous pixels: pixel (i, j) covers [i, i+1) x [j, j+1), so its centre is (i + 0.5, j + 0.5).
OpenCV's drawing and warping put pixel centres at integers; ``to_cv`` converts.

A plane seen by a pinhole camera maps to the image by a homography, so a tile face warped with
``cv2.warpPerspective`` and the matrix of :meth:`Camera.plane_homography` is exactly where the camera
would see it, and the bounds of its projected outline are exact boxes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SHIFT = 4  # sub-pixel bits for cv2's polygon drawing
_ONE = 1 << SHIFT


@dataclass
class Camera:
    width: int
    height: int
    focal: float  # pixels
    R: np.ndarray  # world -> camera rotation (rows: camera x right, y down, z forward)
    C: np.ndarray  # camera centre in world coordinates
    tilt_deg: float = 0.0
    roll_deg: float = 0.0

    @property
    def K(self) -> np.ndarray:
        return np.array([[self.focal, 0, self.width / 2], [0, self.focal, self.height / 2], [0, 0, 1]])

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (..., 3) to image points (..., 2) in continuous pixel coordinates."""
        pc = (points - self.C) @ self.R.T
        z = np.maximum(pc[..., 2:3], 1e-6)
        return pc[..., :2] / z * self.focal + np.array([self.width / 2, self.height / 2])

    def depth(self, points: np.ndarray) -> np.ndarray:
        return ((points - self.C) @ self.R.T)[..., 2]

    def plane_homography(self, origin: np.ndarray, ex: np.ndarray, ey: np.ndarray) -> np.ndarray:
        """The 3x3 matrix taking plane coordinates (u, v) of ``origin + u*ex + v*ey`` to image pixels."""
        M = np.stack([self.R @ ex, self.R @ ey, self.R @ (origin - self.C)], axis=1)
        return self.K @ M

    def rays(self, points: np.ndarray) -> np.ndarray:
        """World directions of the rays through image points (N, 2)."""
        K_inv = np.linalg.inv(self.K)
        return np.c_[points, np.ones(len(points))] @ K_inv.T @ self.R

    def image_to_table(self, points: np.ndarray, z: float = 0.0) -> np.ndarray:
        """Back-project image points (N, 2) onto the plane at height ``z`` (rays must hit it)."""
        rays = self.rays(points)
        t = (z - self.C[2]) / np.where(np.abs(rays[:, 2]) < 1e-9, -1e-9, rays[:, 2])
        return self.C + rays * t[:, None]


def look_at(target: np.ndarray, distance: float, tilt_deg: float, azimuth_deg: float, roll_deg: float,
            width: int, height: int, focal: float) -> Camera:
    """A camera ``distance`` mm from ``target``, tilted ``tilt_deg`` from straight down, standing at
    compass angle ``azimuth_deg`` (0: on the -y side, the player's side, looking towards +y) and
    turned ``roll_deg`` about its axis."""
    tilt, az, roll = np.radians([tilt_deg, azimuth_deg, roll_deg])
    # the horizontal direction the camera looks along, and its position
    look_h = np.array([np.sin(az), np.cos(az), 0.0])
    forward = np.array([look_h[0] * np.sin(tilt), look_h[1] * np.sin(tilt), -np.cos(tilt)])
    C = np.asarray(target, float) - forward * distance
    # image "up" is the look direction tilted up: for a top-down camera it is look_h
    up = np.array([look_h[0] * np.cos(tilt), look_h[1] * np.cos(tilt), np.sin(tilt)])
    right = np.cross(forward, up)
    down = -up
    c, s = np.cos(roll), np.sin(roll)
    x_axis = c * right + s * down
    y_axis = -s * right + c * down
    R = np.stack([x_axis, y_axis, forward])
    return Camera(width, height, focal, R, C, tilt_deg, roll_deg)


def to_cv(points: np.ndarray, offset: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """Continuous image points to cv2's fixed-point polygon coordinates (pixel centres at integers),
    relative to ``offset`` (a region's top-left corner), as int32 for ``shift=SHIFT``."""
    q = (points - np.asarray(offset) - 0.5) * _ONE
    # far-off points (a shadow cast by a low light) must not overflow cv2's int32 coordinates
    return np.rint(np.clip(q, -(1 << 26), 1 << 26)).astype(np.int32)


def shift_matrix(dx: float, dy: float) -> np.ndarray:
    return np.array([[1.0, 0, dx], [0, 1.0, dy], [0, 0, 1.0]])


def cv_homography(H: np.ndarray, offset: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """A homography between continuous pixel coordinates, rewritten for cv2.warpPerspective (pixel
    centres at integers) into a region whose top-left corner is ``offset``."""
    return shift_matrix(-0.5 - offset[0], -0.5 - offset[1]) @ H @ shift_matrix(0.5, 0.5)
