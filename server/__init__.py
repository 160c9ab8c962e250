"""mjscan's server stage: the Flask upload page and the JSON API (``/api/scan``, ``/api/score``).

It converts HTTP requests to the scorer's and vision's types and their results back to the shared JSON
formats; it holds no scoring or vision logic of its own. ``mjscan serve`` runs it.
"""
