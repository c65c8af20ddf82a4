"""The web game: a FastAPI server (:mod:`ui.web.server`) and one static page (``static/``)."""
