"""Serving Headroom to a team: N Streamlit processes behind nginx (``make serve REPLICAS=N``), and the same layout
as containers (``deploy/compose.yaml``) or pods (``deploy/kubernetes.yaml``). Every form starts Streamlit with the
Makefile's ``SERVE_FLAGS`` and routes with one nginx template (:mod:`deploy.config`)."""
