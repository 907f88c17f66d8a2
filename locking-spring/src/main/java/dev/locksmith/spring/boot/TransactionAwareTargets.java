package dev.locksmith.spring.boot;

import javax.sql.DataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.util.ClassUtils;

/**
 * The data source lock operations borrow from: behind Spring's {@link
 * TransactionAwareDataSourceProxy}, its target, since the proxy hands out the connection of the
 * caller's transaction, and a lock must commit at once and survive that transaction's rollback.
 */
final class TransactionAwareTargets {
  private static final boolean SPRING_JDBC =
      ClassUtils.isPresent(
          "org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy",
          TransactionAwareTargets.class.getClassLoader());

  private TransactionAwareTargets() {}

  /** {@code dataSource}, or the target behind its transaction-aware proxies. */
  static DataSource forLocks(DataSource dataSource) {
    return SPRING_JDBC ? unwrap(dataSource) : dataSource;
  }

  private static DataSource unwrap(DataSource dataSource) {
    DataSource current = dataSource;
    while (current instanceof TransactionAwareDataSourceProxy proxy) {
      DataSource target = proxy.getTargetDataSource();
      if (target == null) {
        throw new IllegalStateException(
            "locksmith.url=jdbc: the application's TransactionAwareDataSourceProxy has no target"
                + " DataSource");
      }
      current = target;
    }
    return current;
  }
}
