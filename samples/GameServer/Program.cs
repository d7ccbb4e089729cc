Console.WriteLine("Stellar.Store sample game server: not built yet (see the sample's issue). Nothing was measured.");
return 0;
