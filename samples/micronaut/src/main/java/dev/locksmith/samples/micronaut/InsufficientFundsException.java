package dev.locksmith.samples.micronaut;

/** A transfer asked for more than the source account holds; nothing was moved. */
final class InsufficientFundsException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  InsufficientFundsException(String account, long balance, long cents) {
    super(
        "account '"
            + account
            + "' holds "
            + balance
            + " cents, cannot transfer "
            + cents
            + " cents");
  }
}
