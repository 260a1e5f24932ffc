print("clavis")
