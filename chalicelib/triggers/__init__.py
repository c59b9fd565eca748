"""Tasks started by outside events: GitHub webhooks (an issue labelled for the agent, a mention)."""
