using BenchmarkDotNet.Running;
using Stellar.Store.Benchmarks.Infrastructure;

SideMetrics.Clear();
BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, BenchConfig.Create());
