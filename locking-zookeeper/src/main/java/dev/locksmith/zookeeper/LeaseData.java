package dev.locksmith.zookeeper;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * What a lease node carries: whether it holds or waits, the TTL of its last grant or renewal, the
 * owner token that renew and release check, a readable owner, and the lock id (node names of long
 * ids are digests, so listings read the id from here; an id too long for a node's data is stored as
 * its digest too).
 *
 * @param holding {@code true} once the node was granted (or created by an attempt that takes the
 *     lock only if free); a waiting node is never expired by others, only by its session
 * @param ttlMillis the lease's TTL from the node's last modification on the ensemble's clock
 * @param ownerToken the acquisition's owner token
 * @param owner the readable owner (host, pid, thread)
 * @param lockId the lock id
 */
record LeaseData(boolean holding, long ttlMillis, String ownerToken, String owner, String lockId) {
  private static final String VERSION = "locksmith-1";

  /**
   * The longest lock id (in UTF-8 bytes) a node's data carries; a longer one is stored as its node
   * name (a digest), since a node's data past the server's {@code jute.maxbuffer} (1 MB by default)
   * makes the server drop the connection, and the session's suspension ends every lease.
   */
  static final int MAX_STORED_ID_BYTES = 16 * 1024;

  /** The same node turned into a holder with {@code ttlMillis}. */
  LeaseData holdingFor(long ttl) {
    return new LeaseData(true, ttl, ownerToken, owner, lockId);
  }

  /** The same node waiting. */
  LeaseData waiting() {
    return new LeaseData(false, ttlMillis, ownerToken, owner, lockId);
  }

  byte[] encode() {
    String text =
        String.join(
            "\n",
            VERSION,
            holding ? "H" : "W",
            Long.toString(ttlMillis),
            ownerToken,
            owner.replace('\n', ' '),
            storedId());
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** The lock id, or for one longer than {@link #MAX_STORED_ID_BYTES} its node name. */
  private String storedId() {
    // UTF-8 takes at most 3 bytes a char: only a long id needs encoding to be measured.
    boolean fits =
        (long) lockId.length() * 3 <= MAX_STORED_ID_BYTES
            || lockId.getBytes(StandardCharsets.UTF_8).length <= MAX_STORED_ID_BYTES;
    return fits ? lockId : LockPaths.nodeName(lockId);
  }

  /** The node's data, or {@code null} when it is not a lease node of this provider. */
  static @Nullable LeaseData decode(byte @Nullable [] bytes) {
    if (bytes == null) {
      return null;
    }
    String[] parts = new String(bytes, StandardCharsets.UTF_8).split("\n", 6);
    if (parts.length != 6 || !parts[0].equals(VERSION)) {
      return null;
    }
    try {
      return new LeaseData(
          parts[1].equals("H"), Long.parseLong(parts[2]), parts[3], parts[4], parts[5]);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
