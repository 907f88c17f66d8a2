package dev.locksmith.testkit;

/**
 * Every capability contract: what a provider with waiting, renewal, fencing tokens, a store that
 * can be restarted, and a faultable path passes.
 */
public interface FullContract
    extends BasicLeaseContract,
        WaitingContract,
        RenewalContract,
        FencingContract,
        FaultContract,
        ShortTtlContract,
        StoreLifecycleContract {}
