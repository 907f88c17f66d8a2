package dev.locksmith.samples.springboot;

/**
 * The row was written under a newer lease than ours: our lease ran out while we worked (a long GC
 * pause, a frozen VM) and another holder has moved on. The transaction rolls back.
 */
final class FencedOffException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  FencedOffException(String account, long fence) {
    super(
        "account '%s' was written under a newer lease than fencing token %d; rolled back"
            .formatted(account, fence));
  }
}
