"""mjscan's datasets stage: the synthetic photo renderer and the handling of real photos.

It renders labelled synthetic photos of laid-out hands, reads and writes YOLO/COCO labels, and prepares
training data from them and from the real photos. Nothing at run time depends on it.
"""
