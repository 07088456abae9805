print("tapgridd")
