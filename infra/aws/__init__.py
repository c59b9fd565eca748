"""The production stack on AWS: template parts rendered from the queue and schedule tables.

`infra/template.py` assembles them with the Chalice app's SAM output; `infra/package.py` builds
`dist/`; `infra/deploy.py` uploads and deploys. Nothing here runs inside a Lambda.
"""
