package dev.locksmith.aspectj;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.LocksmithSettings;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine that {@link DistributedLockAspect} hands every locked call to, one per class loader
 * that loads this module.
 *
 * <p>Either set it before the first locked call:
 *
 * <pre>{@code
 * AspectLocksmith.use(Locksmith.builder().defaultProvider(LockProviders.create("tcp://lockhost:7420")).build());
 * AspectLocksmith.validatePackages("com.acme.jobs");   // optional: fail now, not on the first call
 * }</pre>
 *
 * <p>or do nothing: the first locked call creates it with {@link Locksmith#fromSettings()} from
 * {@code locksmith.url} and {@code locksmith.providers.<name>.url} (system properties, environment
 * variables, {@code locksmith.properties}), and closes it when the JVM shuts down. A configuration
 * mistake (a bad URL, no provider at all) fails that call, and every later one, with the engine's
 * message until it is fixed: such an engine is not kept, so {@link #use} and settings made later
 * still take effect.
 *
 * <p>Setting the engine, or creating it from settings, first checks that every
 * {@code @DistributedLock} method the compiler listed is woven ({@link #verifyWeaving()}), and
 * refuses to start when one would run unlocked.
 */
public final class AspectLocksmith {
  private static final Logger LOG = LoggerFactory.getLogger(AspectLocksmith.class);
  private static final ReentrantLock INIT = new ReentrantLock();
  private static volatile @Nullable Locksmith engine;
  private static boolean fromSettings;

  /**
   * The engine made from settings that named no provider, not kept as {@link #engine}: every call
   * fails with its message, and a URL set later or {@link #use} still takes effect.
   */
  private static @Nullable Locksmith unconfigured;

  private static @Nullable Thread shutdownHook;

  /**
   * The engines handed over by {@link #use} and not yet given back by {@link #reset(Locksmith)},
   * latest first: when a framework context closes, the engine of one still open comes back.
   */
  private static final Deque<Locksmith> handedOver = new ArrayDeque<>();

  private AspectLocksmith() {}

  /**
   * Sets the engine for every locked call from now on. Call it at start-up, before the first locked
   * call; the caller keeps ownership and closes it. Replacing an engine set earlier by this method
   * is allowed (calls already running finish under the engine they started with).
   *
   * <p>First it checks, as {@link #verifyWeaving()} does, that every {@code @DistributedLock}
   * method the compiler listed is woven; when one is not, the engine is not set.
   *
   * @param locksmith the engine every woven call uses from now on
   * @throws IllegalStateException when a locked call already created an engine from settings
   * @throws LockConfigurationException listing every listed method that would run unlocked
   */
  public static void use(Locksmith locksmith) {
    Objects.requireNonNull(locksmith, "locksmith");
    WeavingVerifier.verify(WeavingVerifier.defaultLoaders());
    INIT.lock();
    try {
      if (engine != null && fromSettings) {
        throw new IllegalStateException(
            "AspectLocksmith.use(...) came too late: a @DistributedLock call or validate(...)"
                + " already created the engine from settings (locksmith.url); call use(...) at"
                + " start-up, before the first locked call, or configure through locksmith.url"
                + " alone");
      }
      handedOver.remove(locksmith);
      handedOver.push(locksmith);
      engine = locksmith;
      fromSettings = false;
    } finally {
      INIT.unlock();
    }
  }

  /**
   * The engine: the one set by {@link #use}, else one created now from settings, after the same
   * weaving check as {@link #verifyWeaving()}.
   *
   * @return the engine woven calls use
   * @throws LockConfigurationException when the settings name a provider URL that is wrong, or when
   *     a listed {@code @DistributedLock} method would run unlocked
   */
  public static Locksmith engine() {
    Locksmith current = engine;
    return current != null ? current : createFromSettings();
  }

  private static Locksmith createFromSettings() {
    INIT.lock();
    try {
      Locksmith current = engine;
      if (current == null) {
        LocksmithSettings settings = LocksmithSettings.load();
        Locksmith empty = unconfigured;
        if (empty != null && settings.defaultUrl() == null && settings.providerUrls().isEmpty()) {
          return empty; // still nothing configured: checked and built once
        }
        WeavingVerifier.verify(WeavingVerifier.defaultLoaders());
        current = Locksmith.builder().settings(settings).build();
        if (current.providers().isEmpty()) {
          unconfigured = current;
          return current;
        }
        Thread hook = new Thread(AspectLocksmith::closeAtShutdown, "locksmith-aspectj-shutdown");
        try {
          Runtime.getRuntime().addShutdownHook(hook);
          shutdownHook = hook;
        } catch (IllegalStateException shuttingDown) {
          LOG.debug("JVM is shutting down; the engine from settings is not closed", shuttingDown);
        }
        engine = current;
        fromSettings = true;
        LOG.info(
            "Locksmith engine for @DistributedLock created from settings; providers: {}",
            current.providerNames());
      }
      return current;
    } finally {
      INIT.unlock();
    }
  }

  /**
   * Forgets the engine, so that the next locked call or {@link #use} starts afresh. An engine that
   * was created from settings is closed; one set by {@link #use} is left to its owner.
   */
  public static void reset() {
    INIT.lock();
    try {
      Thread hook = shutdownHook;
      if (hook != null) {
        shutdownHook = null;
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          LOG.debug("JVM is shutting down; the shutdown hook closes the engine", shuttingDown);
        }
      }
      closeOwned();
      engine = null;
      handedOver.clear();
    } finally {
      INIT.unlock();
    }
  }

  /**
   * Forgets an engine set by {@link #use}: a framework context that handed its engine over calls
   * this when it closes. Closing one context never takes the engine away from another: when {@code
   * expected} is the engine in use, the one handed over before it and not yet forgotten (another
   * context's, still open) is used again, else the next locked call starts afresh; when it is not,
   * the engine in use stays.
   *
   * @param expected the engine the caller set
   * @return whether {@code expected} was forgotten (false when it was not set, or forgotten before)
   */
  public static boolean reset(Locksmith expected) {
    INIT.lock();
    try {
      boolean wasHandedOver = handedOver.remove(expected);
      if (engine != expected) {
        return wasHandedOver;
      }
      Locksmith earlier = handedOver.peekFirst();
      if (earlier == null) {
        reset();
      } else {
        engine = earlier;
        fromSettings = false;
      }
      return true;
    } finally {
      INIT.unlock();
    }
  }

  private static void closeAtShutdown() {
    INIT.lock();
    try {
      closeOwned();
    } finally {
      INIT.unlock();
    }
  }

  private static void closeOwned() {
    Locksmith empty = unconfigured;
    if (empty != null) {
      unconfigured = null;
      empty.close();
    }
    Locksmith current = engine;
    if (current != null && fromSettings) {
      fromSettings = false;
      current.close();
    }
  }

  /**
   * Checks now that every {@code @DistributedLock} method the compiler saw is intercepted by {@link
   * DistributedLockAspect}: reads every {@code META-INF/locksmith/locked-methods} index (written at
   * compile time by the annotation processor of {@code locking-annotations}) that the context class
   * loader or this module's loader sees, loads each listed class without initialising it (so that a
   * load-time weaver weaves it first) and checks that it was woven. {@link #use} and the creation
   * of the engine from settings run the same check; call this at start-up to fail before any other
   * work. Without any index on the class path nothing can be checked, and a warning is logged.
   *
   * @return how many listed methods were checked
   * @throws LockConfigurationException listing every method that would run unlocked: its class was
   *     not woven, it inherits the annotation from an interface or overridden method (which
   *     AspectJ's execution join points do not see), or the annotation is more meta-annotation
   *     levels away than the aspect matches
   */
  public static int verifyWeaving() {
    return WeavingVerifier.verify(WeavingVerifier.defaultLoaders());
  }

  /**
   * Checks every {@code @DistributedLock} method of the given classes now, with the engine's rules
   * (durations, keys, providers, busy policy, a result the aspect can hold: {@link
   * Locksmith#validateForInvoke}), and checks that each such class was woven with {@link
   * DistributedLockAspect}, so that mistakes fail at start-up instead of on the first call.
   *
   * @param types the classes to check
   * @return how many annotated methods were checked
   * @throws LockConfigurationException naming the class, method and attribute of the first mistake,
   *     or the class that was not woven
   */
  public static int validate(Class<?>... types) {
    Locksmith locksmith = engine();
    int count = 0;
    for (Class<?> type : types) {
      try {
        count += locksmith.validateForInvoke(type);
      } catch (NoClassDefFoundError e) {
        throw Weaving.unreadable(type, e);
      }
      Weaving.check(type);
    }
    return count;
  }

  /**
   * {@link #validate(Class[])} for every class in the given packages and their sub-packages, found
   * on the class path (directories and jars) of the context class loader.
   *
   * @param packageNames the packages to scan, such as {@code com.example.jobs}
   * @return how many annotated methods were checked
   * @throws LockConfigurationException naming the first mistake
   */
  public static int validatePackages(String... packageNames) {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    if (loader == null) {
      loader = AspectLocksmith.class.getClassLoader();
    }
    int count = 0;
    for (String packageName : packageNames) {
      count += validate(ClassScanner.scan(loader, packageName).toArray(Class<?>[]::new));
    }
    return count;
  }
}
