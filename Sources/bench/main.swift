print("bench: not implemented yet")
