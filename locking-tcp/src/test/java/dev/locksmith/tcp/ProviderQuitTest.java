package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.RunningServer;
import dev.locksmith.testkit.FaultProxy;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A provider the application closes ends its connection with {@code QUIT}, so the server takes the
 * close for the client's own, whatever reaches it afterwards (a close with a reply still unread
 * reaches it as a reset, and a reset connection's leases are kept until their TTL).
 */
class ProviderQuitTest {
  @RegisterExtension static final RunningServer server = new RunningServer();

  @Test
  void closingTheProviderSendsQuitAsItsLastRequest() throws Exception {
    try (OldServer old =
        new OldServer(
            Map.of(
                "ACQUIRE", words -> "OK " + words[5] + " 1 " + words[3],
                "QUIT", words -> "BYE"))) {
      LockProvider provider = LockProviders.create("tcp://127.0.0.1:" + old.port());
      provider.tryAcquire(LockRequest.of("job", Duration.ofSeconds(30))).orElseThrow();

      provider.close();

      assertThat(old.commands()).containsExactly("ACQUIRE", "QUIT");
    }
  }

  @Test
  void theServerReleasesTheLeasesOfAClosedProviderAtOnce() throws Exception {
    LockProvider provider = LockProviders.create(server.url());
    provider.tryAcquire(LockRequest.of("quit-job", Duration.ofMinutes(5))).orElseThrow();

    provider.close();

    try (LockProvider next = LockProviders.create(server.url())) {
      await()
          .atMost(Duration.ofSeconds(2))
          .until(
              () -> next.tryAcquire(LockRequest.of("quit-job", Duration.ofSeconds(5))).isPresent());
    }
  }

  /**
   * The server releases a closing provider's leases as QUIT reaches it and grants them to waiters
   * at once, before its close can reach the closing client (here 500 ms later): the closing
   * provider must report its lease lost before it sends QUIT, not when it hears of the close, or
   * the report would come after another holder got the lock.
   */
  @Test
  void aClosingProviderReportsItsLeasesLostBeforeTheServerCanGrantThemOn() throws Exception {
    try (FaultProxy proxy = server.proxy();
        LockProvider next = LockProviders.create(server.url());
        LockProvider closing = LockProviders.create(RunningServer.url(proxy, ""))) {
      AtomicLong lostAt = new AtomicLong();
      closing.onLeaseLost(lease -> lostAt.compareAndSet(0, System.nanoTime()));
      closing.tryAcquire(LockRequest.of("quit-order", Duration.ofMinutes(5))).orElseThrow();
      CompletableFuture<Long> grantedAt = new CompletableFuture<>();
      Thread waiter =
          new Thread(
              () -> {
                try {
                  next.acquire(
                          LockRequest.of("quit-order", Duration.ofSeconds(30)),
                          Duration.ofSeconds(20))
                      .orElseThrow();
                  grantedAt.complete(System.nanoTime());
                } catch (Exception e) {
                  grantedAt.completeExceptionally(e);
                }
              });
      waiter.start();
      await().until(() -> TcpServerStats.fetch(next).orElseThrow().waiters() == 1);
      proxy.delay(FaultProxy.Direction.TO_CLIENT, Duration.ofMillis(500));

      closing.close();

      long granted = grantedAt.get(10, TimeUnit.SECONDS);
      assertThat(lostAt.get()).as("the closing provider reported its lease lost").isNotZero();
      assertThat(lostAt.get() - granted)
          .as("reported lost before the next holder got the lock")
          .isNegative();
    }
  }

  /**
   * A thread of a Netty pool meant for blocking work is no event loop: a close there waits for the
   * server's close like any other (here delayed 500 ms), so the server takes the close for the
   * client's own. Before, any thread Netty built skipped the wait.
   */
  @Test
  void aProviderClosedOnANettyWorkerThreadWaitsForTheServersClose() throws Exception {
    EventExecutorGroup workers = new DefaultEventExecutorGroup(1);
    try (FaultProxy proxy = server.proxy();
        LockProvider closing = LockProviders.create(RunningServer.url(proxy, ""))) {
      closing.tryAcquire(LockRequest.of("quit-worker", Duration.ofMinutes(5))).orElseThrow();
      proxy.delay(FaultProxy.Direction.TO_CLIENT, Duration.ofMillis(500));

      long took =
          workers
              .submit(
                  () -> {
                    long start = System.nanoTime();
                    closing.close();
                    return System.nanoTime() - start;
                  })
              .get(10, TimeUnit.SECONDS);

      assertThat(Duration.ofNanos(took)).isGreaterThanOrEqualTo(Duration.ofMillis(450));
    } finally {
      workers.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }
  }

  /**
   * Closed from its own I/O thread (a release's continuation, a lost-lease callback), the provider
   * neither waits for that thread to end, which cannot happen while it waits, nor stalls it.
   */
  @Test
  void aProviderClosedOnItsOwnIoThreadReturnsAtOnce() throws Exception {
    try (FaultProxy proxy = server.proxy();
        LockProvider closing = LockProviders.create(RunningServer.url(proxy, ""))) {
      var grant =
          closing
              .tryAcquire(LockRequest.of("quit-own-thread", Duration.ofMinutes(5)))
              .orElseThrow();
      // The release's answer is held back until the continuation is in place, so that it runs
      // where the answer is read.
      proxy.freeze(FaultProxy.Direction.TO_CLIENT);
      CompletableFuture<String> thread = new CompletableFuture<>();
      CompletableFuture<Long> took = new CompletableFuture<>();
      closing
          .releaseAsync(grant)
          .whenComplete(
              (released, error) -> {
                thread.complete(Thread.currentThread().getName());
                long start = System.nanoTime();
                closing.close();
                took.complete(System.nanoTime() - start);
              });
      proxy.thaw(FaultProxy.Direction.TO_CLIENT);

      assertThat(thread.get(10, TimeUnit.SECONDS)).startsWith("locksmith-tcp-client");
      // Waiting for its own thread to end took the whole 2 s it allows.
      assertThat(Duration.ofNanos(took.get(10, TimeUnit.SECONDS)))
          .isLessThan(Duration.ofMillis(1500));
    }
  }

  /** On an event loop, where waiting would stall its channels (this provider's among them). */
  @Test
  void onlyAThreadRunningAnEventLoopCountsAsOne() throws Exception {
    MultiThreadIoEventLoopGroup loops =
        new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    EventExecutorGroup workers = new DefaultEventExecutorGroup(1);
    try {
      assertThat(loops.submit(ClientConnection::onEventLoop).get(10, TimeUnit.SECONDS)).isTrue();
      assertThat(workers.submit(ClientConnection::onEventLoop).get(10, TimeUnit.SECONDS)).isFalse();
      assertThat(ClientConnection.onEventLoop()).isFalse();
    } finally {
      loops.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      workers.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }
  }
}
