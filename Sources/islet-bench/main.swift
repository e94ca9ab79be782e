print("islet-bench: not yet")
