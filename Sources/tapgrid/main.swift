print("tapgrid")
