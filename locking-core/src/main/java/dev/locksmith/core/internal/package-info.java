/**
 * Internal: hooks for integrations, the code that plugs Locksmith into a framework (Spring,
 * Micronaut, AspectJ, a CLI): not for application code, which uses {@code @DistributedLock} and the
 * API in {@link dev.locksmith.core}. Not API: these types may change in any release, and the
 * binary-compatibility check does not guard them.
 *
 * <ul>
 *   <li>{@link dev.locksmith.core.internal.LockedInvocation}: an intercepted call, handed to {@link
 *       dev.locksmith.core.Locksmith#invoke};
 *   <li>{@link dev.locksmith.core.internal.PreparedCall}: a call whose lock is taken later, for
 *       reactive results ({@link dev.locksmith.core.Locksmith#prepare});
 *   <li>{@link dev.locksmith.core.internal.ReleaseDeferral}: holds a release back, say until a
 *       transaction completes ({@link dev.locksmith.core.LocksmithBuilder#releaseDeferral});
 *   <li>{@link dev.locksmith.core.internal.KeyLanguage}: the language of key expressions, SpEL from
 *       {@code locking-spel}, found on the class path or given to {@link
 *       dev.locksmith.core.LocksmithBuilder#keyLanguage};
 *   <li>{@link dev.locksmith.core.internal.KeyRoot}: the root object of key expressions;
 *   <li>{@link dev.locksmith.core.internal.ReactiveReturns} and {@link
 *       dev.locksmith.core.internal.ReactiveResults}: a lock held over a {@code Mono} or {@code
 *       Flux} result, one subscription at a time ({@link dev.locksmith.core.internal.ReactiveCall}
 *       is one subscription's call);
 *   <li>{@link dev.locksmith.core.internal.AnnotatedMethods}: which methods carry {@code
 *       DistributedLock}, the one rule the engine and every integration use;
 *   <li>{@link dev.locksmith.core.internal.Proxies}: which methods a proxy can intercept;
 *   <li>{@link dev.locksmith.core.internal.Signatures}: how messages name a method.
 * </ul>
 *
 * <p>The rules (busy policy, keys, reentrancy, renewal, release) stay in the engine: an integration
 * only translates a framework's call into these types and reports what it knows.
 */
@NullMarked
package dev.locksmith.core.internal;

import org.jspecify.annotations.NullMarked;
