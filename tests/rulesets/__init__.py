"""Rule sets that exist only for the tests: registered from here, with no change to env/, agents/ or ui/."""
