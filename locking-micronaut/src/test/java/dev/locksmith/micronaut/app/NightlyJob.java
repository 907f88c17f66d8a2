package dev.locksmith.micronaut.app;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** An application's own annotation standing for a {@code @DistributedLock}. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@DistributedLock(name = "nightly", onBusy = OnBusy.FAIL)
@interface NightlyJob {}
