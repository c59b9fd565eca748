"""What each capability's wiring builds from, one module per capability, imported on first use."""
