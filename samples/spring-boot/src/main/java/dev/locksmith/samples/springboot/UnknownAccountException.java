package dev.locksmith.samples.springboot;

/** No account has this id. */
final class UnknownAccountException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  UnknownAccountException(String account) {
    super("no account '" + account + "'");
  }
}
