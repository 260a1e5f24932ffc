print("clavis-bench")
