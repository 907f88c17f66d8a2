package dev.locksmith.testkit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that starts something the tests need (a server, a client) and closes it
 * again: registered on a static field it serves every test of the class, on an instance field it is
 * started afresh for each test.
 *
 * <pre>{@code
 * @RegisterExtension static final TestResource<TestingServer> server =
 *     new TestResource<>(TestZooKeeper::start);
 * }</pre>
 *
 * @param <T> what is started
 */
public final class TestResource<T extends AutoCloseable>
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
  /** Starts the resource. */
  @FunctionalInterface
  public interface Starter<T> {
    /**
     * The started resource.
     *
     * @return the started resource
     * @throws Exception when a provider call fails
     */
    T start() throws Exception;
  }

  private final Starter<T> starter;
  private @Nullable T resource;
  private boolean perTest;

  /**
   * A resource made by {@code starter}.
   *
   * @param starter starts the resource at first use
   */
  public TestResource(Starter<T> starter) {
    this.starter = starter;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    resource = starter.start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    close();
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    if (resource == null) {
      perTest = true;
      resource = starter.start();
    }
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    if (perTest) {
      close();
    }
  }

  /**
   * The started resource.
   *
   * @return the started resource
   */
  public T get() {
    T started = resource;
    if (started == null) {
      throw new IllegalStateException("not started: only while a test of the class runs");
    }
    return started;
  }

  private void close() throws Exception {
    T started = resource;
    resource = null;
    if (started != null) {
      started.close();
    }
  }
}
