package legend

// IsHeader reports whether text heads a legend table ("LEGEND",
// "SYMBOL", "MERKKIEN SELITYKSET", …): the words legend reading looks for
// on PDF pages, for readers of other page kinds (internal/imagelegend).
func IsHeader(text string) bool { return hasWord(text, headerWords) }

// IsQuantityHeader reports whether text heads a quantity column ("QTY",
// "KPL", "QUANTITY", …).
func IsQuantityHeader(text string) bool { return hasWord(text, qtyWords) }
