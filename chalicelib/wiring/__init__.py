"""Each capability's part of the composition root, one mixin per module.

`chalicelib/bootstrap.py` composes them into the one `Container`; a mixin builds its
capability's adapters and services lazily and names, in a TYPE_CHECKING block, what it takes
from the others.
"""
