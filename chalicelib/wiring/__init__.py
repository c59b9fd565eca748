"""Each capability's part of the composition root, one mixin per module.

`chalicelib/bootstrap.py` composes them into the one `Container`; a mixin builds its
capability's adapters and services lazily; what one builds for the others is declared once, in
`core.py`'s TYPE_CHECKING block.
"""
