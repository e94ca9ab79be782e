print("isletctl: not yet")
