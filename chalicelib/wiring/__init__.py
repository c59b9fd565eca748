"""Each capability's part of the composition root, one mixin per module.

`chalicelib/bootstrap.py` composes them into the one `Container`. A mixin declares each of its
capability's services as `name: Type = provide(lambda c: ...)`, built from the container `c` on first
use; what it builds from is imported from its kit (`kits/<capability>.py`) on that first use, so
`import app` pays for none of it.
"""
