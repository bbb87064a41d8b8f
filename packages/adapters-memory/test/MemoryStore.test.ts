import { storeContract } from "../../domain/test/contract/StoreContract.ts"
import { layerMemory } from "../src/MemoryStore.ts"

storeContract("memory", () => layerMemory)
