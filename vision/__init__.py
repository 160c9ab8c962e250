"""mjscan's vision stage: a tile detector and the grouping that reads a hand from its detections.

Detection takes a photo and gives ``Detections`` (a box, a tile code, a confidence and whether the tile
lies sideways, per tile); grouping turns them into a reading: the standing row, the declared melds and
who they were claimed from, the flowers, the winning tile, and open questions for the player. It uses
only scorer's types, and importing it must not load torch.
"""
