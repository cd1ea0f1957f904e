"""``python -m pipeline``: the same as the ``mlkg`` command."""
from .cli import app

app()
