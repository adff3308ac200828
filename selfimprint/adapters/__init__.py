"""One module per real system. Nothing here holds business rules: those live in domain/."""
