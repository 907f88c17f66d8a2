package dev.locksmith.redis;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisException;
import org.redisson.client.RedisNodeNotFoundException;
import org.redisson.client.RedisReconnectedException;
import org.redisson.client.RedisRetryException;
import org.redisson.client.RedisTimeoutException;
import org.redisson.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks that Redis will not evict lock keys: its {@code maxmemory-policy} must be {@code
 * noeviction}. Under an {@code allkeys-*} policy Redis may evict any key when memory runs short, a
 * held lock's among them; under a {@code volatile-*} policy it evicts keys that have a TTL, and
 * every held lock is such a key while the application's own keys often are not, so the locks go
 * first. Either way a second client then takes a lock its holder still holds, and nothing tells the
 * holder: its renewal simply finds the lock gone, up to a third of the TTL later.
 *
 * <p>Read with {@code CONFIG GET maxmemory-policy} on every master Redisson knows (the one server,
 * the master of a master/replica or Sentinel set-up, every master of a Cluster). Replicas are not
 * read: they do not evict while they replicate, and a replica promoted by a failover is read by
 * providers created after it.
 */
final class EvictionPolicy {
  private static final Logger LOG = LoggerFactory.getLogger(EvictionPolicy.class);

  /** The only policy under which Redis never evicts a key. */
  static final String NO_EVICTION = "noeviction";

  private EvictionPolicy() {}

  /**
   * Reads the policy of every master of {@code client} and refuses one that may evict lock keys,
   * unless {@code options} allow it (then warns). Where a server refuses {@code CONFIG} (managed
   * Redis often renames or forbids it, an ACL user may lack it), warns that the policy could not be
   * checked and returns.
   *
   * @param description the provider's description, with secrets masked, for messages
   * @throws LockConfigurationException when a master's policy may evict lock keys and eviction is
   *     not allowed
   * @throws LockProviderException when the servers could not be reached, so that nothing is known
   */
  static void check(RedissonClient client, RedisLockOptions options, String description) {
    List<? extends RedisNode> masters;
    try {
      masters = masters(client);
    } catch (RuntimeException e) {
      if (unreachable(e)) {
        throw notReached(description, e);
      }
      LOG.warn(
          "Redis {}: could not find its servers to check their maxmemory-policy; if it is not"
              + " noeviction, Redis may evict held locks and let a second holder in: {}",
          description,
          RedisFailures.reason(e));
      return;
    }
    for (RedisNode master : masters) {
      String node = address(master.getAddr());
      String policy;
      try {
        policy = policy(master);
      } catch (RuntimeException e) {
        if (unreachable(e)) {
          throw notReached(description, e);
        }
        LOG.warn(
            "Redis {}: could not check the maxmemory-policy of {} (CONFIG GET refused: {}); make"
                + " sure it is noeviction, or Redis may evict held locks and let a second holder"
                + " in",
            description,
            node,
            replyOf(e));
        continue;
      }
      if (NO_EVICTION.equals(policy)) {
        continue;
      }
      if (options.allowEviction()) {
        LOG.warn(
            "Redis {}: {} has maxmemory-policy '{}', which {}; going on because eviction is"
                + " allowed (allow-eviction=true)",
            description,
            node,
            policy,
            risk(policy));
        continue;
      }
      throw new LockConfigurationException(
          "Redis "
              + description
              + " has maxmemory-policy '"
              + policy
              + "' on "
              + node
              + ", which "
              + risk(policy)
              + ". Set maxmemory-policy noeviction on every node (in redis.conf, or CONFIG SET"
              + " maxmemory-policy noeviction), or accept the risk with the URL parameter"
              + " allow-eviction=true (RedisLockOptions.withAllowEviction(true) for a"
              + " RedissonClient of your own)");
    }
  }

  /** What {@code policy} does to locks, for messages. */
  static String risk(String policy) {
    String what;
    if (policy.startsWith("volatile-")) {
      what =
          "evicts keys that have a TTL when memory runs short, and every held lock is such a key,"
              + " so locks are among the first to go";
    } else if (policy.startsWith("allkeys-")) {
      what = "may evict any key when memory runs short, a held lock among them";
    } else {
      what = "may evict keys when memory runs short, held locks among them";
    }
    return what + "; another client then takes a lock while its holder still runs";
  }

  private static List<? extends RedisNode> masters(RedissonClient client) {
    Config config = client.getConfig();
    if (config.isClusterConfig()) {
      return new ArrayList<>(client.getRedisNodes(RedisNodes.CLUSTER).getMasters());
    }
    if (config.isSentinelConfig()) {
      return List.of(client.getRedisNodes(RedisNodes.SENTINEL_MASTER_SLAVE).getMaster());
    }
    // One server, master/replica and replicated set-ups.
    return List.of(client.getRedisNodes(RedisNodes.MASTER_SLAVE).getMaster());
  }

  private static String policy(RedisNode master) {
    Map<String, String> reply = master.getConfig("maxmemory-policy");
    String policy = reply.get("maxmemory-policy");
    if (policy == null) {
      throw new RedisException("no maxmemory-policy in the reply " + reply);
    }
    return policy.strip().toLowerCase(Locale.ROOT);
  }

  /** Whether {@code e} means the server could not be asked, as opposed to a refusal. */
  private static boolean unreachable(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof RedisConnectionException
          || cause instanceof RedisTimeoutException
          || cause instanceof RedisRetryException
          || cause instanceof RedisReconnectedException
          || cause instanceof RedisNodeNotFoundException) {
        return true;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return false;
  }

  /** The server's error reply, without the channel and command details Redisson appends. */
  private static String replyOf(RuntimeException e) {
    // The first line, before Redisson's channel, command and parameter dump.
    return RedisFailures.cleaned(RedisFailures.unwrap(e));
  }

  private static LockProviderException notReached(String description, RuntimeException e) {
    return new LockProviderException(
        "Redis "
            + description
            + " could not check its maxmemory-policy before the first lock: "
            + RedisFailures.reason(e),
        RedisFailures.unwrap(e));
  }

  private static String address(InetSocketAddress address) {
    return address == null ? "its master" : address.getHostString() + ":" + address.getPort();
  }
}
