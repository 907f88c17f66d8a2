package dev.locksmith.samples.springboot;

/** A transfer would take an account below zero; nothing was written. */
final class InsufficientFundsException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  InsufficientFundsException(String account, long balanceCents, long cents) {
    super(
        "account '%s' has %d cents, cannot move %d cents".formatted(account, balanceCents, cents));
  }
}
