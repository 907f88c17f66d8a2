package dev.locksmith.testkit;

/**
 * A {@link LockedAccounts} bean with its own {@link AccountBook}: a subclass adds the annotated
 * methods, each handing its body to {@link #book}.
 */
public abstract class BookedAccounts implements LockedAccounts {
  /** The state behind the bean, which the annotated methods' bodies update. */
  protected final AccountBook book = new AccountBook();

  /** A bean with an empty book. */
  protected BookedAccounts() {}

  /**
   * The bean's own book: called on a proxy, the call reaches the target's (the proxy's own fields
   * are unused).
   *
   * @return the bean's book
   */
  @Override
  public AccountBook book() {
    return book;
  }
}
