package dev.locksmith.aspectj;

import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.jspecify.annotations.Nullable;

/**
 * Applies the lock advice a second time to {@link TwiceWoven}, as a second copy of the aspect (or a
 * proxy calling an ajc-compiled aspect) would.
 */
@Aspect
public class AgainAspect {
  /** Created by AspectJ. */
  public AgainAspect() {}

  /** Hands the execution to the lock aspect's advice once more. */
  @Around(
      "dev.locksmith.aspectj.DistributedLockAspect.lockedMethod()"
          + " && (within(dev.locksmith.aspectj.TwiceWoven)"
          // A pattern, not a name: ltw.LtwTwice is compiled apart, after this aspect.
          + " || within(dev.locksmith.aspectj.ltw.*Twice))")
  public @Nullable Object again(ProceedingJoinPoint call) throws Throwable {
    return DistributedLockAspect.aspectOf().lock(call);
  }
}
