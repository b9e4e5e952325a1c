"""Imaging for contributed photos: loading, detection, anonymization, geometry, release.

Qt-free.  Heavy libraries (onnxruntime, dlib, OpenCV) are imported lazily inside
functions so that importing ``core`` stays cheap.
"""
