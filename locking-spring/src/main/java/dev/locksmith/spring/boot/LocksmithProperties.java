package dev.locksmith.spring.boot;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LocksmithBuilder;
import dev.locksmith.core.LocksmithSettings;
import dev.locksmith.spring.LockingInfrastructure;
import dev.locksmith.spring.LockingMode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of the Locksmith auto-configuration, under {@code locksmith}. */
@ConfigurationProperties("locksmith")
public class LocksmithProperties {

  /** Whether the Locksmith auto-configuration is on. */
  private boolean enabled = true;

  /**
   * URL of the default provider, such as tcp://lockhost:7420, redis://redis:6379,
   * file:///mnt/locks, jdbc:postgresql://db/app or mem:; or jdbc for the application's DataSource
   * bean (with locking-jdbc on the class path), or zk://zk1:2181,zk2:2181/app (with
   * locking-zookeeper). Not needed when the application defines a LockProvider, RedissonClient or
   * CuratorFramework bean.
   */
  private @Nullable String url;

  /** Named providers, selected with @DistributedLock(provider = "name"). */
  private Map<String, Provider> providers = new LinkedHashMap<>();

  /**
   * How @DistributedLock methods are intercepted: proxy (a Spring AOP advisor) or aspectj (the
   * woven aspect of locking-aspectj; no proxy is added).
   */
  private LockingMode mode = LockingMode.PROXY;

  /**
   * Order of the lock advisor among the advisors of a bean. The default runs the lock outside
   * {@code @Transactional}.
   */
  private int order = LockingInfrastructure.DEFAULT_ORDER;

  /**
   * Whether start-up fails when a provider does not answer. By default an application starts with
   * its lock backend down: the health contributor reports DOWN and locked calls fail fast until the
   * backend answers.
   */
  private boolean requireProvidersAtStartup;

  /**
   * How long closing the context waits for locked calls still running to end and release their
   * leases.
   */
  private Duration shutdownTimeout = Duration.ofSeconds(10);

  /**
   * How often the engine probes a provider that is down, to find it back. Keep it well under a
   * third of the shortest lock ttl.
   */
  private Duration providerProbeInterval = Duration.ofSeconds(1);

  private final Redisson redisson = new Redisson();

  private final Jdbc jdbc = new Jdbc();

  private final Curator curator = new Curator();

  /**
   * Whether the auto-configuration is on.
   *
   * @return whether the auto-configuration is on
   */
  public boolean isEnabled() {
    return enabled;
  }

  /**
   * Turns the auto-configuration on or off.
   *
   * @param enabled whether the auto-configuration is on
   */
  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  /**
   * The default provider's URL.
   *
   * @return the default provider's URL
   */
  public @Nullable String getUrl() {
    return url;
  }

  /**
   * Sets the default provider's URL.
   *
   * @param url the default provider's URL
   */
  public void setUrl(@Nullable String url) {
    this.url = url;
  }

  /**
   * The named providers.
   *
   * @return the named providers
   */
  public Map<String, Provider> getProviders() {
    return providers;
  }

  /**
   * Sets the named providers.
   *
   * @param providers the named providers
   */
  public void setProviders(Map<String, Provider> providers) {
    this.providers = providers;
  }

  /**
   * The interception mode.
   *
   * @return the interception mode
   */
  public LockingMode getMode() {
    return mode;
  }

  /**
   * Sets the interception mode.
   *
   * @param mode the interception mode
   */
  public void setMode(LockingMode mode) {
    this.mode = mode;
  }

  /**
   * The lock advisor's order.
   *
   * @return the lock advisor's order
   */
  public int getOrder() {
    return order;
  }

  /**
   * Sets the lock advisor's order.
   *
   * @param order the lock advisor's order
   */
  public void setOrder(int order) {
    this.order = order;
  }

  /**
   * Whether start-up fails when a provider does not answer.
   *
   * @return whether start-up fails when a provider does not answer
   */
  public boolean isRequireProvidersAtStartup() {
    return requireProvidersAtStartup;
  }

  /**
   * Sets whether start-up fails when a provider does not answer.
   *
   * @param requireProvidersAtStartup whether start-up fails when a provider does not answer
   */
  public void setRequireProvidersAtStartup(boolean requireProvidersAtStartup) {
    this.requireProvidersAtStartup = requireProvidersAtStartup;
  }

  /**
   * How long closing waits for running locked calls.
   *
   * @return how long closing waits for running locked calls
   */
  public Duration getShutdownTimeout() {
    return shutdownTimeout;
  }

  /**
   * Sets how long closing waits for running locked calls.
   *
   * @param shutdownTimeout how long closing waits for running locked calls
   */
  public void setShutdownTimeout(Duration shutdownTimeout) {
    this.shutdownTimeout = shutdownTimeout;
  }

  /**
   * How often a provider that is down is probed.
   *
   * @return how often a provider that is down is probed
   */
  public Duration getProviderProbeInterval() {
    return providerProbeInterval;
  }

  /**
   * Sets how often a provider that is down is probed.
   *
   * @param providerProbeInterval how often a provider that is down is probed
   */
  public void setProviderProbeInterval(Duration providerProbeInterval) {
    this.providerProbeInterval = providerProbeInterval;
  }

  /**
   * Applies the engine settings that are not provider URLs.
   *
   * @param builder the engine's builder
   * @throws LockConfigurationException naming the property whose value the engine refuses
   */
  public void configure(LocksmithBuilder builder) {
    builder.requireProvidersAtStartup(requireProvidersAtStartup);
    apply("locksmith.shutdown-timeout", shutdownTimeout, builder::shutdownTimeout);
    apply(
        "locksmith.provider-probe-interval", providerProbeInterval, builder::providerProbeInterval);
  }

  private static void apply(String property, Duration value, Consumer<Duration> setting) {
    try {
      setting.accept(value);
    } catch (IllegalArgumentException e) {
      throw new LockConfigurationException(property + ": " + e.getMessage(), e);
    }
  }

  /**
   * Settings for a provider over the application's RedissonClient.
   *
   * @return settings for a provider over the application's RedissonClient
   */
  public Redisson getRedisson() {
    return redisson;
  }

  /**
   * Settings for a provider over the application's DataSource ({@code locksmith.url=jdbc}).
   *
   * @return settings for a provider over the application's DataSource ({@code locksmith.url=jdbc})
   */
  public Jdbc getJdbc() {
    return jdbc;
  }

  /**
   * Settings for a provider over the application's CuratorFramework (ZooKeeper).
   *
   * @return settings for a provider over the application's CuratorFramework (ZooKeeper)
   */
  public Curator getCurator() {
    return curator;
  }

  /**
   * The provider URLs as the engine reads them; {@code locksmith.url=jdbc}, the application's
   * DataSource, is a bean of the auto-configuration instead.
   *
   * @return the settings
   * @throws LockConfigurationException when a named provider's URL is the bare {@code jdbc}
   */
  public LocksmithSettings toSettings() {
    Map<String, String> flat = new TreeMap<>();
    if (url != null && !ApplicationDataSource.isUrl(url)) {
      flat.put("locksmith.url", url);
    }
    providers.forEach(
        (name, provider) -> {
          String named = provider.getUrl();
          if (ApplicationDataSource.isUrl(named)) {
            throw new LockConfigurationException(
                "locksmith.providers."
                    + name
                    + ".url=jdbc: the application's DataSource serves only the default provider"
                    + " (locksmith.url=jdbc); give this provider a full URL such as"
                    + " jdbc:postgresql://host/db?user=app");
          }
          if (named != null) {
            flat.put("locksmith.providers." + name + ".url", named);
          }
        });
    return LocksmithSettings.from(flat);
  }

  /** One named provider. */
  public static class Provider {
    /** URL of the provider. */
    private @Nullable String url;

    /**
     * The URL.
     *
     * @return the URL
     */
    public @Nullable String getUrl() {
      return url;
    }

    /**
     * Sets the URL.
     *
     * @param url the URL
     */
    public void setUrl(@Nullable String url) {
      this.url = url;
    }
  }

  /** The provider over an existing RedissonClient bean. */
  public static class Redisson {
    /**
     * Whether a RedissonClient bean becomes the default provider when locksmith.url is not set and
     * no LockProvider bean is defined.
     */
    private boolean enabled = true;

    /** Prefix of the Redis keys and channels of the locks. */
    private String prefix = "locksmith";

    /**
     * Whether the provider accepts a Redis whose maxmemory-policy may evict lock keys (with a
     * warning), as the allow-eviction=true URL parameter does. Leave it off unless the Redis never
     * runs short of memory.
     */
    private boolean allowEviction;

    /**
     * Whether the RedissonClient bean is used.
     *
     * @return whether the RedissonClient bean is used
     */
    public boolean isEnabled() {
      return enabled;
    }

    /**
     * Sets whether the RedissonClient bean is used.
     *
     * @param enabled whether the RedissonClient bean is used
     */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /**
     * The key prefix.
     *
     * @return the key prefix
     */
    public String getPrefix() {
      return prefix;
    }

    /**
     * Sets the key prefix.
     *
     * @param prefix the key prefix
     */
    public void setPrefix(String prefix) {
      this.prefix = prefix;
    }

    /**
     * Whether an evicting maxmemory-policy is accepted.
     *
     * @return whether an evicting maxmemory-policy is accepted
     */
    public boolean isAllowEviction() {
      return allowEviction;
    }

    /**
     * Sets whether an evicting maxmemory-policy is accepted.
     *
     * @param allowEviction whether an evicting maxmemory-policy is accepted
     */
    public void setAllowEviction(boolean allowEviction) {
      this.allowEviction = allowEviction;
    }
  }

  /** The provider over the application's DataSource, with {@code locksmith.url=jdbc}. */
  public static class Jdbc {
    /** The lock table, name or schema.name. */
    private String table = "locksmith_locks";

    /**
     * Whether the table is created on first use when missing; false for a schema managed by Flyway
     * or Liquibase (the DDL is in the locking-jdbc README).
     */
    private boolean createTable = true;

    /**
     * The lock table.
     *
     * @return the lock table
     */
    public String getTable() {
      return table;
    }

    /**
     * Sets the lock table.
     *
     * @param table the lock table
     */
    public void setTable(String table) {
      this.table = table;
    }

    /**
     * Whether the table is created when missing.
     *
     * @return whether the table is created when missing
     */
    public boolean isCreateTable() {
      return createTable;
    }

    /**
     * Sets whether the table is created when missing.
     *
     * @param createTable whether the table is created when missing
     */
    public void setCreateTable(boolean createTable) {
      this.createTable = createTable;
    }
  }

  /** The provider over the application's CuratorFramework bean (ZooKeeper). */
  public static class Curator {
    /**
     * Whether a CuratorFramework bean becomes the default provider (with locking-zookeeper on the
     * class path) when locksmith.url is not set and no LockProvider bean is defined.
     */
    private boolean enabled = true;

    /** The node under which locks live, inside the client's namespace. */
    private String basePath = "/locksmith";

    /** One lock call's bound, waiting for a connection and Curator's retries included. */
    private Duration timeout = Duration.ofSeconds(2);

    /**
     * Whether the CuratorFramework bean is used.
     *
     * @return whether the CuratorFramework bean is used
     */
    public boolean isEnabled() {
      return enabled;
    }

    /**
     * Sets whether the CuratorFramework bean is used.
     *
     * @param enabled whether the CuratorFramework bean is used
     */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /**
     * The base path of the lock nodes.
     *
     * @return the base path of the lock nodes
     */
    public String getBasePath() {
      return basePath;
    }

    /**
     * Sets the base path of the lock nodes.
     *
     * @param basePath the base path of the lock nodes
     */
    public void setBasePath(String basePath) {
      this.basePath = basePath;
    }

    /**
     * One lock call's bound.
     *
     * @return one lock call's bound
     */
    public Duration getTimeout() {
      return timeout;
    }

    /**
     * Sets one lock call's bound.
     *
     * @param timeout one lock call's bound
     */
    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }
  }
}
