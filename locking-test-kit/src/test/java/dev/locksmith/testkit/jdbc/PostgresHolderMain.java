package dev.locksmith.testkit.jdbc;

import java.util.concurrent.CountDownLatch;

/** A child JVM that starts a {@link TestPostgres}, prints its port and runs until it is killed. */
final class PostgresHolderMain {
  private PostgresHolderMain() {}

  public static void main(String[] args) throws InterruptedException {
    TestPostgres server = TestPostgres.start();
    System.out.println("port " + server.port());
    System.out.flush();
    new CountDownLatch(1).await();
  }
}
