"""Scoped API keys: named admin, machine and client keys stored hashed, who may call what."""
