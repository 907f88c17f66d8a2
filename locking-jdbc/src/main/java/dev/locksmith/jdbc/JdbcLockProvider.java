package dev.locksmith.jdbc;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.Deadlines;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.core.spi.ProviderUrl;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leases in a table of the application's database (PostgreSQL, MySQL/MariaDB or H2), one row per
 * lock id, timed by the database's clock. Every operation runs on a connection of its own in
 * autocommit, never in the caller's transaction ({@link Connector}); take, renew and release are
 * single statements that check the owner token ({@link LockCommands}). Fencing tokens are {@code
 * GREATEST(previous token + 1, database clock in microseconds)}: they increase on a row that is
 * kept, and a row deleted by a sweep or an operator restarts above every earlier token as long as
 * the database's clock does not go back.
 *
 * <p>Waiters are woken by this provider's releases, on PostgreSQL by {@code LISTEN/NOTIFY} from
 * every client, and otherwise poll with a bounded back-off ({@link Waiting}).
 *
 * <p>Create one from a URL ({@link #create(String)}) or from a {@link DataSource} ({@link
 * #builder(DataSource)}). Creating never contacts the database: calls fail with {@link
 * LockProviderException} until it answers.
 */
public final class JdbcLockProvider implements LockProvider {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcLockProvider.class);

  private final JdbcSettings settings;
  private final Connector connector;
  private final LockCommands commands;
  private final EndedRowSweep sweep;
  private final WakeUps wakeUps = new WakeUps();
  private final PgListener.Opener listenerOpener;
  private final @Nullable AutoCloseable ownedPool;
  private final String description;
  private final Waiting waiting;
  private final ExecutorService background;
  private final ExecutorService sweeper;
  private final AtomicReference<@Nullable PgListener> listener = new AtomicReference<>();
  // At most one sweep per this many nanoseconds; the first at the first grant or release.
  private final long sweepEvery;
  private final AtomicLong lastSweep;
  private volatile boolean closed;
  // The acquisitions under way, which close waits for before it closes the pool.
  private final Object acquisitions = new Object();
  private int underWay;

  JdbcLockProvider(
      DataSource dataSource,
      @Nullable Dialect dialect,
      JdbcSettings settings,
      PgListener.Opener listenerOpener,
      @Nullable AutoCloseable ownedPool,
      String description) {
    this.settings = settings;
    this.description = description;
    this.connector = new Connector(dataSource, dialect, settings, description, ownedPool != null);
    this.commands = new LockCommands(connector);
    this.sweep = new EndedRowSweep(connector);
    this.sweepEvery = Math.min(settings.retention().toNanos(), Duration.ofMinutes(10).toNanos());
    this.lastSweep = new AtomicLong(System.nanoTime() - sweepEvery);
    this.listenerOpener = listenerOpener;
    this.ownedPool = ownedPool;
    this.waiting =
        new Waiting(
            commands, wakeUps, this::listener, settings.maxPoll(), description, () -> closed);
    this.background = daemonThread("locksmith-jdbc-cleanup");
    // Its own thread: a sweep of a long backlog takes many rounds, and a clean-up after a failed
    // acquire must not wait behind them while the ghost lease it ends blocks others.
    this.sweeper = daemonThread("locksmith-jdbc-sweep");
  }

  private static ExecutorService daemonThread(String name) {
    return Executors.newSingleThreadExecutor(
        task -> {
          Thread thread = new Thread(task, name);
          thread.setDaemon(true);
          return thread;
        });
  }

  /**
   * A provider for a URL such as {@code
   * jdbc:postgresql://127.0.0.1/app?user=app&table=locksmith_locks}, with a small connection pool
   * of its own; see the module's README for the parameters.
   *
   * @param url the JDBC URL with Locksmith's parameters
   * @return the provider, which closes its pool when closed
   * @throws dev.locksmith.core.LockConfigurationException when a part of the URL is wrong, naming
   *     it, or no driver on the class path accepts it
   */
  public static JdbcLockProvider create(String url) {
    return JdbcLockProviderFactory.provider(ProviderUrl.parse(url));
  }

  /**
   * A builder for a provider over the application's {@link DataSource}. Lock operations borrow a
   * connection for each call and use it in autocommit; pass the plain pool, not a transaction-aware
   * proxy. A separate small pool for locks is advised, so that busy business work cannot starve
   * lock renewals: a call that gets no connection within the pool's own connection timeout (not the
   * provider's {@code timeout}, which bounds the statement) fails as the provider being down.
   *
   * @param dataSource the application's pool
   * @return the builder
   */
  public static JdbcLockProviderBuilder builder(DataSource dataSource) {
    return new JdbcLockProviderBuilder(dataSource);
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    acquisitionStarted();
    try {
      return handOut(Optional.ofNullable(take(request).grant()));
    } finally {
      acquisitionEnded();
    }
  }

  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
      throws InterruptedException {
    acquisitionStarted();
    try {
      return handOut(acquireOpen(request, timeout));
    } finally {
      acquisitionEnded();
    }
  }

  /** Counts an acquisition under way, unless the provider is closed (then it throws). */
  private void acquisitionStarted() {
    synchronized (acquisitions) {
      checkOpen();
      underWay++;
    }
  }

  private void acquisitionEnded() {
    synchronized (acquisitions) {
      if (--underWay == 0) {
        acquisitions.notifyAll();
      }
    }
  }

  /** Waits at most {@code nanos} for the acquisitions under way to end. */
  private void awaitAcquisitions(long nanos) throws InterruptedException {
    long deadline = System.nanoTime() + nanos;
    synchronized (acquisitions) {
      for (long left = nanos; underWay > 0 && left > 0; left = deadline - System.nanoTime()) {
        TimeUnit.NANOSECONDS.timedWait(acquisitions, left);
      }
    }
  }

  /**
   * Hands a grant out, and sweeps now and then. A grant that arrived as the provider was closed is
   * given back here, while the pool is still open (close waits for the acquisitions under way), and
   * the call fails: nothing else would end it before its TTL.
   */
  private Optional<LeaseGrant> handOut(Optional<LeaseGrant> grant) {
    if (grant.isPresent() && closed) {
      try {
        commands.release(grant.get());
      } catch (RuntimeException e) {
        LOG.debug("JDBC {}: giving back a grant at close failed: {}", description, e.toString());
      }
      throw new LockProviderException(
          "JDBC "
              + description
              + ": provider closed while taking lock "
              + LockIdText.quoted(grant.get().lockId()));
    }
    if (grant.isPresent()) {
      sweepNowAndThen();
    }
    return grant;
  }

  private Optional<LeaseGrant> acquireOpen(LockRequest request, Duration timeout)
      throws InterruptedException {
    long deadline = Deadlines.nanosAfter(timeout);
    try {
      // Not take(): the catch below cleans up after this attempt and the waits' alike, once.
      LockCommands.Attempt attempt = commands.acquire(request);
      if (attempt.grant() != null) {
        return Optional.of(attempt.grant());
      }
      return waiting.waitFor(request, deadline, attempt.holderLeftMicros());
    } catch (LockProviderException e) {
      abandonLater(request);
      if (Thread.interrupted() || interruption(e)) {
        InterruptedException interrupted =
            new InterruptedException("interrupted while waiting for lock " + request.lockId());
        interrupted.initCause(e);
        throw interrupted;
      }
      throw e;
    }
  }

  /**
   * Whether a failure came from an interrupt (a pool or driver interrupted while waiting); a socket
   * timeout, an {@code InterruptedIOException} too, is the database's silence and does not count.
   */
  private static boolean interruption(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof InterruptedException
          || cause.getClass() == java.io.InterruptedIOException.class
          || cause instanceof java.nio.channels.ClosedByInterruptException) {
        return true;
      }
    }
    return false;
  }

  /** One attempt; when its outcome is unknown, a grant it may have made is ended in background. */
  private LockCommands.Attempt take(LockRequest request) {
    try {
      return commands.acquire(request);
    } catch (LockProviderException e) {
      abandonLater(request);
      throw e;
    }
  }

  private void abandonLater(LockRequest request) {
    try {
      background.execute(() -> abandon(request));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // Closing: close waits for this acquisition before it closes the pool, so it runs here.
      abandon(request);
    }
  }

  private void abandon(LockRequest request) {
    try {
      commands.abandon(request);
    } catch (RuntimeException e) {
      LOG.debug("JDBC {}: clean-up after a failed acquire failed: {}", description, e);
    }
  }

  @Override
  public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    checkOpen();
    return commands.renew(lease, ttl);
  }

  @Override
  public boolean release(LeaseGrant lease) {
    checkOpen();
    boolean released = commands.release(lease);
    if (released) {
      wakeUps.wake(LockIds.stored(lease.lockId()));
      sweepNowAndThen();
    }
    return released;
  }

  /**
   * At most once per ten minutes (or per retention when shorter), after a grant or a release, the
   * first time at the first: a process that lives less than that (a CLI run, a batch job), or whose
   * leases end by their minimum hold (a renewal, not a release), sweeps too.
   */
  private void sweepNowAndThen() {
    long last = lastSweep.get();
    long now = System.nanoTime();
    if (now - last < sweepEvery || !lastSweep.compareAndSet(last, now)) {
      return;
    }
    try {
      sweeper.execute(
          () -> {
            try {
              int deleted = sweep.run(settings.retention());
              LOG.debug("JDBC {}: swept {} rows of ended leases", description, deleted);
            } catch (RuntimeException e) {
              LOG.debug("JDBC {}: sweep failed: {}", description, e.toString());
            }
          });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // Closed meanwhile.
    }
  }

  /** How many of this provider's waiters wait for {@code lockId} now. */
  int localWaiters(String lockId) {
    return wakeUps.count(LockIds.stored(lockId));
  }

  /**
   * Sweeps now, on the sweep's thread after any sweep under way: deletes the rows whose lease ended
   * more than {@code retention} ago. The next sweep after a grant or release is one interval later.
   *
   * @return how many rows it deleted
   */
  int sweep() throws InterruptedException {
    lastSweep.set(System.nanoTime());
    try {
      return sweeper.submit(() -> sweep.run(settings.retention())).get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException failure
          ? failure
          : new IllegalStateException(e.getCause());
    }
  }

  /** {@inheritDoc} The number of waiters is not known ({@code -1}). */
  @Override
  public LockStatus status(String lockId) {
    checkOpen();
    return commands.status(lockId);
  }

  @Override
  public Optional<List<LockStatus>> listHeld() {
    checkOpen();
    return Optional.of(commands.listHeld());
  }

  @Override
  public String description() {
    return description;
  }

  /**
   * The lock table's name.
   *
   * @return the table, as configured
   */
  public String table() {
    return settings.table();
  }

  /**
   * Wakes every waiter, which then throws a {@link LockProviderException} ("provider closed"),
   * stops the listening connection, waits (at most twice the {@code timeout} and a second, each)
   * for the acquisitions under way and the clean-ups of failed ones, and closes the pool when the
   * provider created it (from a URL); an application's {@link DataSource} stays open. Leases still
   * held end by their TTL.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    wakeUps.wakeAll();
    PgListener current = listener.get();
    if (current != null) {
      current.close();
    }
    // The acquisitions under way, then the clean-ups of those that failed, end before the pool
    // closes: a grant whose reply was lost would otherwise hold its lock for the whole TTL.
    long bound = 2 * settings.timeout().toNanos() + TimeUnit.SECONDS.toNanos(1);
    try {
      awaitAcquisitions(bound);
      background.shutdown();
      if (!background.awaitTermination(bound, TimeUnit.NANOSECONDS)) {
        LOG.debug("JDBC {}: clean-ups still running at close", description);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      background.shutdown();
    }
    sweeper.shutdown();
    if (ownedPool != null) {
      try {
        ownedPool.close();
      } catch (Exception e) {
        LOG.debug("JDBC {}: closing the pool failed: {}", description, e.toString());
      }
    }
  }

  /** The PostgreSQL listener, created once the dialect is known to notify; else null. */
  @Nullable PgListener listener() {
    PgListener current = listener.get();
    if (current != null || closed) {
      return current;
    }
    LockSql sql = connector.sqlIfKnown();
    if (sql == null || !sql.dialect().notifies()) {
      return null;
    }
    PgListener created = new PgListener(listenerOpener, settings.channel(), wakeUps, description);
    if (!listener.compareAndSet(null, created)) {
      return listener.get();
    }
    if (closed) {
      // close() ran between the check above and the swap and may not have seen this listener.
      created.close();
    }
    return created;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("Lock provider " + description + " is closed");
    }
  }
}
