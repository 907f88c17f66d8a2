package dev.locksmith.core;

/**
 * The former home of {@link dev.locksmith.core.integration.LockedInvocation}, kept so that code
 * compiled against it still compiles; {@link Locksmith#invoke} takes either.
 *
 * @deprecated implement {@link dev.locksmith.core.integration.LockedInvocation} instead
 */
@Deprecated(forRemoval = true)
public interface LockedInvocation extends dev.locksmith.core.integration.LockedInvocation {}
