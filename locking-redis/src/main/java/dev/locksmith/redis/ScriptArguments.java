package dev.locksmith.redis;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** The keys and arguments the {@link LuaScripts} are run with. */
final class ScriptArguments {
  private ScriptArguments() {}

  /**
   * The keys of a script over several locks: those of each lock, named by {@code each}, one lock
   * after the other ({@code lock1, fence1, ..., lock2, fence2, ...}).
   */
  static List<Object> keysOfEach(List<LockKeys> keys, Function<LockKeys, List<Object>> each) {
    List<Object> scriptKeys = new ArrayList<>();
    for (LockKeys lock : keys) {
      scriptKeys.addAll(each.apply(lock));
    }
    return scriptKeys;
  }

  /**
   * The acquire scripts' four arguments for {@code request}: owner token, ttl in ms, owner
   * description, life of the fencing counter in ms.
   */
  static List<Object> acquire(LockRequest request) {
    long ttl = millis(request.ttl());
    return List.of(
        request.ownerToken(),
        Long.toString(ttl),
        request.owner(),
        Long.toString(ttl + LuaScripts.FENCE_MARGIN_MILLIS));
  }

  /**
   * The acquire script's four further arguments that fold in {@code fold}, a release in flight: its
   * owner token, fencing token, release id and how many release records a hash keeps.
   */
  static List<Object> fold(PendingReleases.Pending fold) {
    return List.of(
        fold.lease().ownerToken(),
        Long.toString(fold.lease().fencingToken()),
        fold.releaseId(),
        Integer.toString(LuaScripts.RELEASE_RECORDS));
  }

  /**
   * The renew scripts' four arguments for {@code lease}: owner token, fencing token, {@code ttl} in
   * ms, and {@code 1} to set it exactly when it is not the lease's own ttl (the engine's minimum
   * hold at release), else {@code 0}: a renewal for the lease's own ttl only lengthens it, so that
   * a late copy cannot cut short a lease renewed for longer since.
   */
  static List<Object> renew(LeaseGrant lease, Duration ttl) {
    long millis = millis(ttl);
    return List.of(
        lease.ownerToken(),
        Long.toString(lease.fencingToken()),
        Long.toString(millis),
        millis == millis(lease.ttl()) ? "0" : "1");
  }

  /**
   * The release script's five arguments for {@code lease}: owner token, fencing token, {@code
   * releaseId}, life of the release record in ms, how many release records a hash keeps.
   */
  static List<Object> release(LeaseGrant lease, String releaseId) {
    return List.of(
        lease.ownerToken(),
        Long.toString(lease.fencingToken()),
        releaseId,
        Long.toString(LuaScripts.TOMBSTONE_MILLIS),
        Integer.toString(LuaScripts.RELEASE_RECORDS));
  }

  private static long millis(Duration ttl) {
    long millis = ttl.toMillis();
    // Round up, so that the lease on the server never ends before the local deadline.
    if (ttl.minusMillis(millis).isZero()) {
      return Math.max(1, millis);
    }
    return millis + 1;
  }
}
