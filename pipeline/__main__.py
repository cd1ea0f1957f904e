"""``python -m pipeline``: the same as the ``mlkg`` command."""
from .launch import main

main()
